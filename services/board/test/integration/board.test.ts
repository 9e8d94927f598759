import { gunzipSync } from "node:zlib";
import {
  AsofView,
  boardContentHash,
  boardRead,
  ChangesView,
  NameHistoryView,
  RegimeHistoryView,
  BoardState,
  BoardStatus,
  BuylistView,
  CryptoNightView,
  CryptoView,
  FreeBoard,
  FullBoard,
  HoldView,
  IndicesView,
  LeadersView,
  MoversView,
  NameDirectoryView,
  NameView,
  PAID_ROUTES,
  RegimeView,
  SectorDirectoryView,
  SectorsView,
  SectorView,
  SymbolDirectory,
  TopVolumeView,
  TradfiRiskView,
  type ViewName,
  SNAPSHOT_STREAM,
} from "@board/proto";
import type { BusError } from "@board/service-kit";
import { requestBytes, ensureBusStreams } from "@board/service-kit";
import { busEnv, deleteSnapshotStream, fixtureSnapshot, freshDatabase, testBusOptions, testInfra, type TestDatabase } from "@board/service-kit/testing";
import { connect, type NatsConnection } from "nats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { z } from "zod";
import { BoardEnv } from "../../src/env.js";
import { startBoard, type BoardService } from "../../src/start.js";

const infra = testInfra();
let nc: NatsConnection;
let db: TestDatabase;
let board: BoardService | null = null;

const env = () => BoardEnv.parse({ ...busEnv("board"), DATABASE_URL: db.url, HEALTH_PORT: 0, LOG_LEVEL: "warn" });
const yesterday = fixtureSnapshot({ asofDaily: "2026-11-19", computedAt: "2026-11-19T13:00:00-08:00", seed: 1 });
const today = fixtureSnapshot({ asofDaily: "2026-11-20", computedAt: "2026-11-20T09:55:00-08:00", seed: 2, intraday: true });
const { signals: _, ...withoutSignals } = fixtureSnapshot({ asofDaily: "2026-11-20", computedAt: "2026-11-20T10:00:00-08:00", seed: 3, intraday: true });

async function publish(s: unknown) {
  const bytes = new TextEncoder().encode(JSON.stringify(s));
  return nc.jetstream().publish("board.snapshots.v1", bytes);
}

async function until(cond: () => boolean | Promise<boolean>, ms = 10_000) {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 50));
  }
}

const read = (view: ViewName, extra: object = {}) => requestBytes(nc, boardRead, { view, ...extra });
const json = (b: Uint8Array) => JSON.parse(new TextDecoder().decode(b)) as unknown;

beforeAll(async () => {
  nc = await connect(testBusOptions());
  await deleteSnapshotStream(nc);
  await ensureBusStreams(nc);
  db = await freshDatabase(infra.databaseUrl);
});

afterAll(async () => {
  await board?.stop();
  await nc.close();
  await db.drop();
});

describe("board service", () => {
  it("answers 503 snapshot_unavailable before any snapshot exists", async () => {
    board = await startBoard(env());
    await expect(read("agent")).rejects.toMatchObject({ status: 503, code: "snapshot_unavailable" } satisfies Partial<BusError>);
  });

  it("consumes snapshots, stores each once, and serves every free view valid against its schema", async () => {
    await publish(yesterday);
    await publish(today);
    await publish(today); // a redelivery: stored once
    await until(() => board!.publication()?.board.asof_daily === "2026-11-20" && board!.publication()!.views.has("free"));
    expect(await board!.store.count()).toBe(2);

    const schemas = { agent: FullBoard, preview: FullBoard, free: FreeBoard, symbols: SymbolDirectory, status: BoardStatus, state: BoardState };
    for (const [view, schema] of Object.entries(schemas)) {
      const { meta, body } = await read(view as ViewName);
      expect(meta.status).toBe(200);
      schema.parse(json(body));
    }
    const free = FreeBoard.parse(json((await read("free")).body));
    expect(free.asof_daily).toBe("2026-11-19"); // one day delayed
    for (const code of free.book_order) {
      const members = yesterday.board.names.filter((r) => r.bk.includes(code)).length;
      expect(free.books[code].top).toHaveLength(Math.min(3, members));
    }
    const preview = FullBoard.parse(json((await read("preview")).body));
    expect(preview.asof_daily).toBe("2026-11-19");
    expect(preview.names.length).toBeLessThanOrEqual(12);
    const full = FullBoard.parse(json((await read("agent")).body));
    expect(full.names).toHaveLength(today.board.names.length);
  });

  it("serves every paid view, with and without parameters, valid against its schema", async () => {
    const ten = today.board.names.slice(0, 10).map((r) => r.sym).join(",");
    const reads: [ViewName, Record<string, string>, z.ZodObject][] = [
      ["agent", {}, FullBoard],
      ["regime", {}, RegimeView],
      ["buylist", {}, BuylistView],
      ["indices", {}, IndicesView],
      ["sectors", {}, SectorsView],
      ["top-volume", {}, TopVolumeView],
      ["leaders", {}, LeadersView],
      ["movers", {}, MoversView],
      ["crypto", {}, CryptoView],
      ["crypto-night", {}, CryptoNightView],
      ["tradfi-risk", {}, TradfiRiskView],
      ["name", { sym: "BTC-USD" }, NameView],
      ["name", { sym: ten }, NameView],
      ["name", { sym: "NOPE,ZZZ" }, NameDirectoryView],
      ["hold", { sym: "BTC-USD,ETH-USD,NOPE" }, HoldView],
      ["hold", { sym: "NOPE" }, NameDirectoryView],
      ["sector", { name: "semis" }, SectorView],
      ["sector", { etf: today.sector_etfs.Energy }, SectorView],
      ["sector", { name: "Nope" }, SectorDirectoryView],
      ["sector", {}, SectorDirectoryView],
      // The history reads, from the tables the two commitments wrote.
      ["asof", { date: "2026-11-19" }, AsofView],
      ["regime-history", {}, RegimeHistoryView],
      ["regime-history", { book: "spx", days: "1" }, RegimeHistoryView],
      ["name-history", { sym: today.board.names.slice(0, 2).map((r) => r.sym).join(",") }, NameHistoryView],
      ["changes", { since: boardContentHash(yesterday.board as unknown as Record<string, unknown>) }, ChangesView],
    ];
    for (const route of PAID_ROUTES) expect(reads.some(([view]) => view === route.view), route.path).toBe(true);
    for (const [view, params, schema] of reads) {
      const label = `${view} ${JSON.stringify(params)}`;
      const plain = await read(view, { params });
      expect(plain.meta.status, label).toBe(200);
      expect(plain.meta.asof_daily, label).toBe("2026-11-20");
      expect(plain.meta.etag, label).toMatch(/^W\/"[0-9a-f]{32}"$/);
      schema.parse(json(plain.body));
      const zipped = await read(view, { params, encoding: "gzip" });
      expect(zipped.meta.etag, label).toBe(plain.meta.etag);
      schema.parse(json(gunzipSync(zipped.body)));
    }
    const nine = today.board.names.slice(0, 9).map((r) => r.sym);
    const batch = NameView.parse(json((await read("name", { params: { sym: `${nine.join(",")},NOPE` } })).body));
    expect(batch.names.map((r) => r.sym)).toEqual(nine);
    expect(batch.unknown).toEqual(["NOPE"]);
    const sector = SectorView.parse(json((await read("sector", { params: { etf: today.sector_etfs.Semis } })).body));
    expect(sector.sector).toBe("Semis");
    const dated = AsofView.parse(json((await read("asof", { params: { date: "2026-11-19" } })).body));
    expect(dated.board).toEqual(yesterday.board);
    expect(dated.commitment.content_hash).toBe(boardContentHash(yesterday.board as unknown as Record<string, unknown>));
    const names = NameHistoryView.parse(json((await read("name-history", { params: { sym: today.board.names[0]!.sym } })).body));
    expect(names.names[0]!.sessions.map((s) => s.date)).toEqual(["2026-11-19", "2026-11-20"]);
  });

  it("refuses a history read it cannot answer with the reason and what to ask instead", async () => {
    await expect(read("asof", { params: { date: "2026-11-18" } })).rejects.toMatchObject({
      status: 404,
      code: "session_not_committed",
      param: "date",
      message: "No board of 2026-11-18 is committed. Nearest committed sessions: 2026-11-19.",
    });
    await expect(read("asof", { params: { date: "2026-11-21" } })).rejects.toMatchObject({ status: 404, message: expect.stringContaining("2026-11-20") });
    await expect(read("changes", { params: { since: "e".repeat(64) } })).rejects.toMatchObject({
      status: 404,
      code: "board_unknown",
      message: expect.stringContaining(`The oldest board accepted is ${boardContentHash(yesterday.board as unknown as Record<string, unknown>)}`),
    });
    await expect(read("name-history", { params: { sym: "NOPE" } })).rejects.toMatchObject({ status: 400, code: "invalid_query" });
    await expect(read("regime-history", { params: { days: "0" } })).rejects.toMatchObject({ status: 400, code: "invalid_query" });
  });

  it("serves gzip bytes that decompress to the identity body, and 304 on a matching ETag", async () => {
    for (const [view, params] of [["agent", {}], ["name", { sym: "BTC-USD,ETH-USD" }]] as const) {
      const plain = await read(view, { params });
      const zipped = await read(view, { params, encoding: "gzip" });
      expect(zipped.meta.encoding).toBe("gzip");
      const a = json(plain.body) as Record<string, unknown>;
      const b = json(gunzipSync(zipped.body)) as Record<string, unknown>;
      delete a.freshness;
      delete b.freshness;
      expect(b).toEqual(a);
      const again = await read(view, { params, if_none_match: plain.meta.etag });
      expect(again.meta.status).toBe(304);
      expect(again.body.length).toBe(0);
    }
  });

  it("refuses a malformed request with invalid_request, and a view its snapshot cannot make with not_implemented", async () => {
    const raw = await nc.request("board.v1.read", new TextEncoder().encode('{"view":"nope"}'));
    expect(raw.headers?.get("Nats-Service-Error-Code")).toBe("400");
    expect(raw.headers?.get("Nats-Service-Error")).toBe("invalid_request");
    await expect(read("name", { params: { sym: "A,B,C,D,E,F,G,H,I,J,K" } })).rejects.toMatchObject({ status: 400, code: "invalid_request" });
    // The fixture scanner sends no engine section: the live views are not rendered.
    for (const view of ["live-feed", "live-rules", "live-setup"] as const)
      await expect(read(view), view).rejects.toMatchObject({ status: 501, code: "not_implemented" });
    // A later board of the same day from a scanner that sends no signals: the views made from them go away.
    await publish(withoutSignals);
    await until(() => board!.publication()?.board.computed_at === withoutSignals.board.computed_at);
    for (const view of ["leaders", "movers", "top-volume", "crypto", "crypto-night", "tradfi-risk"] as const)
      await expect(read(view), view).rejects.toMatchObject({ status: 501, code: "not_implemented" });
    expect((await read("regime")).meta.status).toBe(200);
  });

  it("on restart loads the latest stored snapshot before serving, without the stream", async () => {
    await board!.stop();
    await deleteSnapshotStream(nc);
    board = await startBoard(env());
    const { meta } = await read("agent");
    expect(meta.asof_daily).toBe("2026-11-20");
    expect(meta.computed_at).toBe(withoutSignals.board.computed_at);
    expect(await board.store.count()).toBe(3);
    // The deploy step makes the stream again; the waiting board follows it from then on.
    await ensureBusStreams(nc);
    const jsm = await nc.jetstreamManager();
    await until(async () => (await jsm.streams.info(SNAPSHOT_STREAM)).state.consumer_count > 0);
  });

  it("a redelivery reads the view of the snapshot it bought with the freshness it was served with: the same bytes after a newer board and after a restart", async () => {
    const first = await read("regime");
    const firstGzip = await read("regime", { encoding: "gzip" });
    const bought = first.meta.snapshot;
    expect(bought).toBe(board!.publication()!.snapshotHash);
    const again = (r: typeof first) => read("regime", { snapshot: bought, freshness: r.meta.freshness, encoding: r.meta.encoding });

    await publish(fixtureSnapshot({ asofDaily: "2026-11-20", computedAt: "2026-11-20T10:05:00-08:00", seed: 4, intraday: true }));
    await until(() => board!.publication()!.snapshotHash !== bought);
    const newer = await read("regime");
    expect(newer.meta.snapshot).not.toBe(bought);
    expect(Buffer.from(newer.body).equals(Buffer.from(first.body))).toBe(false);

    for (const r of [first, firstGzip]) {
      const redelivered = await again(r);
      expect(redelivered.meta).toMatchObject({ status: 200, snapshot: bought, etag: r.meta.etag, freshness: r.meta.freshness });
      expect(Buffer.from(redelivered.body).equals(Buffer.from(r.body))).toBe(true);
    }
    // Rendered again from the store after a restart: still the same bytes.
    await board!.stop();
    board = await startBoard(env());
    for (const r of [first, firstGzip]) expect(Buffer.from((await again(r)).body).equals(Buffer.from(r.body))).toBe(true);
    await expect(read("regime", { snapshot: "f".repeat(64), freshness: first.meta.freshness })).rejects.toMatchObject({ status: 404, code: "not_found" } satisfies Partial<BusError>);
    // Views of the delayed board name no snapshot: they are not sold.
    expect((await read("free")).meta.snapshot).toBeUndefined();
  });
});
