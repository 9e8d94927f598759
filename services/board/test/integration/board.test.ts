import { gunzipSync } from "node:zlib";
import { boardRead, BoardState, BoardStatus, FreeBoard, FullBoard, SymbolDirectory, type ViewName } from "@board/proto";
import type { BusError} from "@board/service-kit";
import { requestBytes, ensureSnapshotStream } from "@board/service-kit";
import { deleteSnapshotStream, fixtureSnapshot, freshDatabase, testInfra, type TestDatabase } from "@board/service-kit/testing";
import { connect, type NatsConnection } from "nats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BoardEnv } from "../../src/env.js";
import { startBoard, type BoardService } from "../../src/start.js";

const infra = testInfra();
let nc: NatsConnection;
let db: TestDatabase;
let board: BoardService | null = null;

const env = () => BoardEnv.parse({ NATS_URL: infra.natsUrl, DATABASE_URL: db.url, HEALTH_PORT: 0, LOG_LEVEL: "warn" });
const yesterday = fixtureSnapshot({ asofDaily: "2026-11-19", computedAt: "2026-11-19T13:00:00-08:00", seed: 1 });
const today = fixtureSnapshot({ asofDaily: "2026-11-20", computedAt: "2026-11-20T09:55:00-08:00", seed: 2, intraday: true });

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
  nc = await connect({ servers: infra.natsUrl });
  await deleteSnapshotStream(nc);
  await ensureSnapshotStream(nc);
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

  it("serves gzip bytes that decompress to the identity body, and 304 on a matching ETag", async () => {
    const plain = await read("agent");
    const zipped = await read("agent", { encoding: "gzip" });
    expect(zipped.meta.encoding).toBe("gzip");
    const a = json(plain.body) as Record<string, unknown>;
    const b = json(gunzipSync(zipped.body)) as Record<string, unknown>;
    delete a.freshness;
    delete b.freshness;
    expect(b).toEqual(a);
    const again = await read("agent", { if_none_match: plain.meta.etag });
    expect(again.meta.status).toBe(304);
    expect(again.body.length).toBe(0);
  });

  it("refuses a malformed request with invalid_request and a view not rendered yet with not_implemented", async () => {
    const raw = await nc.request("board.v1.read", new TextEncoder().encode('{"view":"nope"}'));
    expect(raw.headers?.get("Nats-Service-Error-Code")).toBe("400");
    expect(raw.headers?.get("Nats-Service-Error")).toBe("invalid_request");
    await expect(read("regime")).rejects.toMatchObject({ status: 501, code: "not_implemented" });
  });

  it("on restart loads the latest stored snapshot before serving, without the stream", async () => {
    await board!.stop();
    await deleteSnapshotStream(nc);
    board = await startBoard(env());
    const { meta } = await read("agent");
    expect(meta.asof_daily).toBe("2026-11-20");
    expect(await board.store.count()).toBe(2);
  });
});
