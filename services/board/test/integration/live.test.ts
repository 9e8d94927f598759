// The live views through the real bus and store: rendered from a snapshot with the engine
// section, answered on board.v1.read, gone with a snapshot without it, and back from the store
// after a restart.

import { gunzipSync } from "node:zlib";
import { boardRead, LiveFeedView, LiveRulesView, LiveSetupView, NameDirectoryView, type ViewName } from "@board/proto";
import { ensureBusStreams, requestBytes } from "@board/service-kit";
import { busEnv, deleteSnapshotStream, fixtureSnapshot, freshDatabase, testBusOptions, testInfra, type TestDatabase } from "@board/service-kit/testing";
import { connect, type NatsConnection } from "nats";
import { afterAll, beforeAll, expect, it } from "vitest";
import { BoardEnv } from "../../src/env.js";
import { startBoard, type BoardService } from "../../src/start.js";
import { liveLater, liveToday } from "../views/live-days.js";

const infra = testInfra();
let nc: NatsConnection;
let db: TestDatabase;
let board: BoardService | null = null;

const env = () => BoardEnv.parse({ ...busEnv("board"), DATABASE_URL: db.url, HEALTH_PORT: 0, LOG_LEVEL: "warn" });
const publish = (s: unknown) => nc.jetstream().publish("board.snapshots.v1", new TextEncoder().encode(JSON.stringify(s)));
const read = (view: ViewName, params: Record<string, string> = {}, encoding: "identity" | "gzip" = "identity") =>
  requestBytes(nc, boardRead, { view, params, encoding });
const json = (b: Uint8Array) => JSON.parse(new TextDecoder().decode(b)) as unknown;

async function until(cond: () => boolean, ms = 10_000) {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 50));
  }
}
const serving = (computedAt: string) => until(() => board!.publication()?.board.computed_at === computedAt);

beforeAll(async () => {
  nc = await connect(testBusOptions());
  await deleteSnapshotStream(nc);
  await ensureBusStreams(nc);
  db = await freshDatabase(infra.databaseUrl);
  board = await startBoard(env());
});

afterAll(async () => {
  await board?.stop();
  await nc.close();
  await db.drop();
});

it("serves the three live views of a snapshot with the engine section, in both encodings", async () => {
  await publish(liveToday);
  await serving(liveToday.board.computed_at);
  for (const [view, params, schema] of [
    ["live-feed", {}, LiveFeedView],
    ["live-rules", {}, LiveRulesView],
    ["live-setup", {}, LiveSetupView],
    ["live-setup", { sym: "TC0,NOPE" }, LiveSetupView],
    ["live-setup", { sym: "NOPE" }, NameDirectoryView],
  ] as const) {
    const plain = await read(view, params);
    expect(plain.meta.status).toBe(200);
    expect(plain.meta.computed_at).toBe(liveToday.board.computed_at);
    schema.parse(json(plain.body));
    const zipped = await read(view, params, "gzip");
    expect(zipped.meta.etag).toBe(plain.meta.etag);
    schema.parse(json(gunzipSync(zipped.body)));
  }
  const all = LiveSetupView.parse(json((await read("live-setup")).body));
  expect(all.names).toHaveLength(liveToday.board.names.length);
});

it("drops them for a snapshot without the section, and renders them again with the next one that has it", async () => {
  const older = fixtureSnapshot({ asofDaily: "2026-11-20", computedAt: "2026-11-20T09:57:00-08:00", seed: 4, intraday: true });
  expect(older.engine).toBeUndefined();
  await publish(older);
  await serving(older.board.computed_at);
  for (const view of ["live-feed", "live-rules", "live-setup"] as const) await expect(read(view), view).rejects.toMatchObject({ status: 501, code: "not_implemented" });
  expect((await read("regime")).meta.status).toBe(200);
  await publish(liveLater);
  await serving(liveLater.board.computed_at);
  const feed = LiveFeedView.parse(json((await read("live-feed")).body));
  expect(feed.computed_at).toBe(liveLater.board.computed_at);
});

it("after a restart serves them from the stored snapshot, without the stream", async () => {
  const before = await read("live-feed");
  await board!.stop();
  await deleteSnapshotStream(nc);
  board = await startBoard(env());
  const after = await read("live-feed");
  expect(after.meta.etag).toBe(before.meta.etag);
  expect((await read("live-setup", { sym: "TC0" })).meta.status).toBe(200);
});
