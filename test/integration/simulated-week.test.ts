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
import { asc } from "drizzle-orm";
import type { BoardContent, BookCode } from "@board/proto";
import { boardContentHash } from "@board/proto";
import { changeBases } from "../../services/board/src/db/schema.js";
import { changesBetween, type ChangeBasis } from "../../services/board/src/history/basis.js";
import { HistoryReads } from "../../services/board/src/history/reads.js";

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

/** The difference of two boards computed directly from them, from the rule of /api/board/changes: the oracle of the stored bases. */
function directChanges(a: BoardContent, b: BoardContent) {
  const sorted = (xs: Iterable<string>) => [...xs].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
  const verdicts: { book: BookCode; from: string; to: string }[] = [];
  const lanes: { book: BookCode; lane: string; entered: string[]; left: string[] }[] = [];
  for (const book of b.book_order) {
    const before = a.books[book];
    const after = b.books[book]!;
    if (before && before.regime.verdict !== after.regime.verdict) verdicts.push({ book, from: before.regime.verdict, to: after.regime.verdict });
    for (const lane of ["risk_adjusted", "swing"] as const) {
      const was = new Set((before?.lanes[lane] ?? []).map((e) => e.sym));
      const is = new Set(after.lanes[lane].map((e) => e.sym));
      const entered = sorted([...is].filter((s) => !was.has(s)));
      const left = sorted([...was].filter((s) => !is.has(s)));
      if (entered.length + left.length > 0) lanes.push({ book, lane, entered, left });
    }
  }
  const stateOf = (board: BoardContent) => new Map(board.names.map((n) => [n.sym, n.state]));
  const sa = stateOf(a);
  const sb = stateOf(b);
  const states = sorted(new Set([...sa.keys(), ...sb.keys()]))
    .filter((sym) => sa.get(sym) !== sb.get(sym))
    .map((sym) => ({ sym, from: sa.get(sym) ?? null, to: sb.get(sym) ?? null }));
  const firedBefore = new Set(a.names.filter((n) => n.light === "firing").map((n) => n.sym));
  const newlyFiring = sorted(b.names.filter((n) => n.light === "firing" && !firedBefore.has(n.sym)).map((n) => n.sym));
  return { verdicts, lanes, states, newly_firing: newlyFiring };
}

describe("the week's history, written with each commitment", () => {
  const history = () => new HistoryReads(stack.board!.runtime.database!.db);
  // The board consumes the stream in order, so the i-th published board is commitment i + 1.
  const boards = () => published.map((s) => s.board);
  /** Per session, its last board (the latest computed). */
  const lastOfSessions = () => {
    const last = new Map<string, BoardContent>();
    for (const b of boards()) if (!last.has(b.asof_daily) || last.get(b.asof_daily)!.computed_at < b.computed_at) last.set(b.asof_daily, b);
    return last;
  };

  it("keeps a verdict log equal to the verdict changes between consecutive stored boards", async () => {
    const expected = [];
    const all = boards();
    for (let i = 1; i < all.length; i++) {
      for (const book of all[i]!.book_order) {
        const before = all[i - 1]!.books[book]?.regime;
        const after = all[i]!.books[book]!.regime;
        if (!before || before.verdict === after.verdict) continue;
        expected.push({
          book,
          date: all[i]!.asof_daily,
          computed_at: new Date(all[i]!.computed_at).toISOString(),
          seq: i + 1,
          from: before.verdict,
          to: after.verdict,
          figures: {
            index_sym: after.index_sym,
            index_above_sma50: after.index_above_sma50,
            index_above_sma200: after.index_above_sma200,
            breadth_50: after.breadth_50,
            breadth_200: after.breadth_200,
          },
        });
      }
    }
    expect(expected.length, "the week changes some verdict").toBeGreaterThan(0);
    const { changes, sessions } = await history().verdictChanges(null, 250);
    expect(sessions).toEqual([...lastOfSessions().keys()].sort());
    expect(changes).toEqual(expected);
    const spx = await history().verdictChanges(["spx"], 250);
    expect(spx.changes).toEqual(expected.filter((c) => c.book === "spx"));
    // Only the last 3 sessions.
    const recent = await history().verdictChanges(null, 3);
    expect(recent.changes).toEqual(expected.filter((c) => c.date >= recent.sessions[0]!));
  });

  it("keeps name history equal to the records of each session's last committed board", async () => {
    const last = lastOfSessions();
    const syms = ["AAPL", "NVDA", "SPY", "BTC-USD", "XLE", "TLT", "JPM", "QQQ", "ETH-USD", "AMD"];
    const got = await history().nameSessions(syms, 250);
    for (const { sym, sessions } of got) {
      const want = [...last.entries()]
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .flatMap(([date, board]) => {
          const n = board.names.find((r) => r.sym === sym);
          return n
            ? [{ date, state: n.state, light: n.light, trigger: n.trigger, opp_score: n.opp_score, opp_pct: n.opp_pct, entry_q: n.entry_q, hold_q: n.hold_q, hold_label: n.hold_label, price: n.price }]
            : [];
        });
      expect(want.length, sym).toBeGreaterThan(5);
      expect(sessions, sym).toEqual(want);
    }
  });

  it("compares any two consecutive boards, and any board to the newest, as the boards themselves differ", async () => {
    const db = stack.board!.runtime.database!.db;
    const rows = await db.select().from(changeBases).orderBy(asc(changeBases.seq));
    const all = boards();
    expect(rows.map((r) => r.seq)).toEqual(all.map((_, i) => i + 1));
    for (let i = 1; i < all.length; i++) {
      expect(changesBetween(rows[i - 1]!.basis as ChangeBasis, rows[i]!.basis as ChangeBasis), `boards ${i} -> ${i + 1}`).toEqual(directChanges(all[i - 1]!, all[i]!));
    }
    expect(rows.some((r, i) => i > 0 && directChanges(all[i - 1]!, all[i]!).lanes.length > 0), "some lane changes in the week").toBe(true);
    const newest = all[all.length - 1]!;
    for (let i = 0; i < all.length; i += 7) {
      const got = await history().changesSince(boardContentHash(all[i]! as unknown as Record<string, unknown>));
      expect("reason" in got, `board ${i + 1}`).toBe(false);
      const { from, to, ...changes } = got as Exclude<typeof got, { reason: string }>;
      expect(from.seq).toBe(i + 1);
      expect(to.seq).toBe(all.length);
      expect(changes).toEqual(directChanges(all[i]!, newest));
    }
    expect(await history().changesSince("0".repeat(64))).toMatchObject({ reason: "unknown_board", oldest: { content_hash: rows[0]!.contentHash } });
  });

  it("finds each session's last committed board, which the proof chain verifies, and names the sessions either side of a day without one", async () => {
    const proof = await stack.board!.store.commitments(500);
    for (const [date, board] of lastOfSessions()) {
      const dated = await history().datedBoard(date);
      expect(dated.found, date).toBe(true);
      const stored = await stack.board!.store.byHash((dated as { snapshotHash: string }).snapshotHash);
      expect(stored!.board).toEqual(board);
      const entries = proof.rows.map((r) => ({ seq: r.seq, content_hash: r.contentHash, previous: r.previous, commitment: r.commitment }));
      expect(checkBoardAgainstProof(stored!.board as unknown as Record<string, unknown>, entries), date).toMatchObject({ ok: true });
      const tampered = { ...stored!.board, names: stored!.board.names.map((n, k) => (k === 0 ? { ...n, opp_score: (n.opp_score + 1) % 100 } : n)) };
      expect(checkBoardAgainstProof(tampered as unknown as Record<string, unknown>, entries)).toMatchObject({ ok: false, reason: "not_committed" });
    }
    expect(await history().datedBoard("2026-11-07")).toEqual({ found: false, before: "2026-11-06", after: "2026-11-09" });
    expect(await history().datedBoard("2020-01-02")).toEqual({ found: false, before: null, after: "2026-10-29" });
  });
});
