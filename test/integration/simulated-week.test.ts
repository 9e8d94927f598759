import {
  AsofSampleView,
  BoardStatus,
  boardRead,
  checkBoardAgainstProof,
  FullBoard,
  PerfView,
  ProofView,
  SignalAuditView,
  SNAPSHOT_STREAM,
  type Snapshot,
  type ViewName,
} from "@board/proto";
import { requestBytes } from "@board/service-kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ScannerEnv } from "../../services/scanner-ingest/src/env.js";
import { catchUpSlots, nextScanAt } from "../../services/scanner-ingest/src/schedule.js";
import { startScanner, type ScannerService } from "../../services/scanner-ingest/src/start.js";
import { FastForwardClock } from "../../services/scanner-ingest/test/support/clocks.js";
import { readSnapshotStream } from "@board/service-kit/testing";
import { Stack } from "./harness.js";

// Monday 2 Nov 2026, 06:00 New York, to Wednesday 11 Nov, 17:00: eight sessions, in seconds.
const START = new Date("2026-11-02T11:00:00Z");
const END = new Date("2026-11-11T22:00:00Z");
const REFRESH = 60;

const stack = new Stack();
let scanner: ScannerService;
let clock: FastForwardClock;
const published: Snapshot[] = [];

const streamSnapshots = () => readSnapshotStream(stack.nc);

const read = async (view: ViewName) => JSON.parse(new TextDecoder().decode((await requestBytes(stack.nc, boardRead, { view })).body)) as unknown;

beforeAll(async () => {
  await stack.start();
  // The board lives on the same virtual clock, so its commitments precede the later boards as they would in real time.
  await stack.startBoard({ now: () => clock.now() });
  const boardCaughtUp = async () => {
    const jsm = await stack.nc.jetstreamManager();
    const { state } = await jsm.streams.info(SNAPSHOT_STREAM);
    for (let i = 0; i < 400 && (await stack.board!.store.lastStreamSeq()) < state.last_seq; i++) await new Promise((r) => setTimeout(r, 10));
  };
  clock = new FastForwardClock(START, END, boardCaughtUp);
  scanner = await startScanner(
    ScannerEnv.parse({ ...stack.busEnv("scanner-ingest"), HEALTH_PORT: 0, LOG_LEVEL: "warn", REFRESH_MINUTES: String(REFRESH) }),
    { clock },
  );
  await clock.reachedEnd;
  await boardCaughtUp();
  published.push(...(await streamSnapshots()));
}, 240_000);

afterAll(async () => {
  await scanner?.stop();
  await stack.stop();
});

describe("a simulated market week", () => {
  it("publishes on schedule: the owed boards, then every slot once, none missed", () => {
    const expected = catchUpSlots(null, START, REFRESH).map((s) => s.at.getTime());
    for (let t = nextScanAt(START, REFRESH); t <= END; t = nextScanAt(t, REFRESH)) expected.push(t.getTime());
    expect(published.map((s) => Date.parse(s.board.computed_at))).toEqual(expected);
    const days = new Set(published.map((s) => s.board.asof_daily));
    // Before Monday's open the current board is Friday's, so the owed previous close is Thursday's.
    expect([...days].sort()).toEqual(["2026-10-29", "2026-10-30", "2026-11-02", "2026-11-03", "2026-11-04", "2026-11-05", "2026-11-06", "2026-11-09", "2026-11-10", "2026-11-11"]);
    // Each session: the morning board (previous day's data), intraday boards, and its closing board.
    const closes = published.filter((s) => !s.board.intraday && /T13:00:00-0[78]:00$/.test(s.board.computed_at));
    expect(closes.map((s) => s.board.asof_daily)).toEqual(["2026-10-29", "2026-11-02", "2026-11-03", "2026-11-04", "2026-11-05", "2026-11-06", "2026-11-09", "2026-11-10", "2026-11-11"]);
  });

  it("shows every entry state and both lights during the week", () => {
    const states = new Set(published.flatMap((s) => s.board.names.map((n) => n.state)));
    expect([...states].sort()).toEqual(["CHASE", "FALLING", "READY", "SETUP", "WAIT"]);
    const lights = new Set(published.flatMap((s) => s.board.names.map((n) => n.light)));
    expect([...lights].sort()).toEqual(["cold", "firing"]);
  });

  it("serves a full board that the proof chain verifies", async () => {
    const board = FullBoard.parse(await read("agent"));
    expect(board.asof_daily).toBe("2026-11-11");
    const proof = ProofView.parse(await read("proof"));
    expect(proof.total).toBe(published.length);
    expect(checkBoardAgainstProof(board as unknown as Record<string, unknown>, proof.entries)).toMatchObject({ ok: true, seq: published.length });
  });

  it("serves the free proof, sample, audit and performance reads over HTTP, and status carries performance", async () => {
    const get = async (path: string) => {
      const res = await fetch(`${stack.base}${path}`);
      expect(res.status, path).toBe(200);
      return (await res.json()) as unknown;
    };
    const sample = AsofSampleView.parse(await get("/api/board/asof?sample=1"));
    expect(sample.board.asof_daily).toBe("2026-11-10"); // one trading day before the current board
    const proof = ProofView.parse(await get("/api/board/proof"));
    expect(checkBoardAgainstProof(sample.board as unknown as Record<string, unknown>, proof.entries)).toMatchObject({ ok: true, seq: sample.commitment.seq });
    SignalAuditView.parse(await get("/api/board/signal-audit"));
    PerfView.parse(await get("/api/perf"));
    const status = BoardStatus.parse(await get("/api/board/status"));
    expect(status.performance).not.toBeNull();
    expect(Object.keys(status.performance!)).toEqual(expect.arrayContaining(["spx_excess_pct"]));
  });

  it("audits forward returns and performance with real figures", async () => {
    const audit = SignalAuditView.parse(await read("signal-audit"));
    expect(audit.status).toBe("ok");
    const one = audit.horizons.find((h) => h.sessions === 1)!;
    expect(one.days_measured).toBeGreaterThanOrEqual(5);
    expect(one.by_state.reduce((n, b) => n + b.observations, 0)).toBeGreaterThan(1000);
    const perf = PerfView.parse(await read("perf"));
    expect(perf.status).toBe("ok");
    expect(perf.books.every((b) => b.benchmark_return_pct !== null)).toBe(true);
  });
});
