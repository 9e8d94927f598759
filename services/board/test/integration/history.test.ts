// History tables as the commitment writes them: retention, a late older board, a redelivery,
// and the storage a session takes at the universe's size (565 names).
import { boardContentHash, type Snapshot } from "@board/proto";
import { ensureBusStreams } from "@board/service-kit";
import { busEnv, deleteSnapshotStream, fixtureSnapshot, freshDatabase, testBusOptions, testInfra, type TestDatabase } from "@board/service-kit/testing";
import { connect } from "nats";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BoardEnv } from "../../src/env.js";
import { HistoryReads } from "../../src/history/reads.js";
import { startBoard, type BoardService } from "../../src/start.js";
import { snapshotHash } from "../../src/store.js";

const infra = testInfra();
let db: TestDatabase;
let board: BoardService;
const reads = () => new HistoryReads(board.runtime.database!.db);
const save = (s: Snapshot) => {
  const body = JSON.stringify(s);
  return board.store.save(s, body, snapshotHash(new TextEncoder().encode(body)), null);
};
const DAYS = ["2026-11-16", "2026-11-17", "2026-11-18", "2026-11-19"];
const NAMES = 565;
const snapshotOf = (day: string, time: string, seed: number) => fixtureSnapshot({ asofDaily: day, computedAt: `${day}T${time}-08:00`, seed, names: NAMES });

beforeAll(async () => {
  // An empty snapshot stream: the board would otherwise store what earlier test files published.
  const nc = await connect(testBusOptions());
  await deleteSnapshotStream(nc);
  await ensureBusStreams(nc);
  await nc.close();
  db = await freshDatabase(infra.databaseUrl);
  board = await startBoard(
    BoardEnv.parse({ ...busEnv("board"), DATABASE_URL: db.url, HEALTH_PORT: 0, LOG_LEVEL: "warn", CHANGES_RETENTION_SESSIONS: "2", HISTORY_RETENTION_SESSIONS: "250" }),
  );
}, 60_000);

afterAll(async () => {
  await board?.stop();
  await db?.drop();
});

describe("history written with each commitment", () => {
  it("keeps change bases for the configured sessions and names the oldest it keeps to a `since` past them", async () => {
    let seed = 1;
    for (const day of DAYS) {
      expect(await save(snapshotOf(day, "07:00:00", seed++))).toBe(true);
      expect(await save(snapshotOf(day, "13:00:00", seed++))).toBe(true);
    }
    const first = snapshotOf(DAYS[0]!, "07:00:00", 1);
    const gone = await reads().changesSince(boardContentHash(first.board as unknown as Record<string, unknown>));
    const oldestKept = snapshotOf(DAYS[2]!, "07:00:00", 5);
    expect(gone).toEqual({
      reason: "board_too_old",
      oldest: { content_hash: boardContentHash(oldestKept.board as unknown as Record<string, unknown>), asof_daily: DAYS[2], computed_at: new Date(oldestKept.board.computed_at).toISOString() },
    });
    const kept = await reads().changesSince(boardContentHash(oldestKept.board as unknown as Record<string, unknown>));
    expect(kept).toMatchObject({ from: { asof_daily: DAYS[2] }, to: { asof_daily: DAYS[3] } });
    // Name history keeps every session (250 kept): four sessions of each name.
    const [aapl] = await reads().nameSessions([first.board.names[0]!.sym], 250);
    expect(aapl!.sessions.map((s) => s.date)).toEqual(DAYS);
  });

  it("lets a session's later board stand over an older one arriving late, and a redelivery change nothing", async () => {
    const sym = snapshotOf(DAYS[3]!, "13:00:00", 8).board.names[0]!;
    const late = snapshotOf(DAYS[3]!, "09:00:00", 99);
    expect(await save(late)).toBe(true);
    const [history] = await reads().nameSessions([sym.sym], 250);
    expect(history!.sessions.at(-1)).toMatchObject({ date: DAYS[3], state: sym.state, opp_score: sym.opp_score, price: sym.price });
    expect(await save(late)).toBe(false);
  });

  it("measures the storage a session takes with the universe's 565 names", async () => {
    const one = async (query: string) => Number(((await board.runtime.database!.db.execute(sql.raw(query))) as unknown as { rows: { n: string }[] }).rows[0]!.n);
    const size = (table: string) => one(`select pg_total_relation_size('board.${table}') as n`);
    const sessions = DAYS.length;
    const names = await size("name_sessions");
    const bases = await size("change_bases");
    const boardsKept = await one("select count(*) as n from board.change_bases");
    const verdicts = await size("verdict_changes");
    // Figures for the README, not limits: a bound only against a runaway layout.
    console.log(`history storage: name_sessions ${Math.round(names / sessions / 1024)} kB/session, change_bases ${Math.round(bases / boardsKept / 1024)} kB/board, verdict_changes ${verdicts} B total`);
    expect(names / sessions).toBeLessThan(1024 * 1024);
  });
});
