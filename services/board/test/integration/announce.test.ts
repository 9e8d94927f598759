import { BOARD_PUBLISHED_SUBJECT, boardRead, BoardPublishedEvent, BoardState, ProofView } from "@board/proto";
import { ensureBusStreams, requestBytes } from "@board/service-kit";
import { busEnv, deleteSnapshotStream, fixtureSnapshot, freshDatabase, testBusOptions, testInfra, type TestDatabase } from "@board/service-kit/testing";
import { connect, type NatsConnection, type Subscription } from "nats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BoardEnv } from "../../src/env.js";
import { startBoard, type BoardService } from "../../src/start.js";

// Each publication that goes live is announced on the bus (core NATS) with its state hashes
// and its commitment: what the gateways push to their /api/board/events streams.

const infra = testInfra();
let nc: NatsConnection;
let db: TestDatabase;
let sub: Subscription;
const boards: BoardService[] = [];
const heard: BoardPublishedEvent[] = [];

const env = () => BoardEnv.parse({ ...busEnv("board"), DATABASE_URL: db.url, HEALTH_PORT: 0, LOG_LEVEL: "warn" });
const publish = (s: unknown) => nc.jetstream().publish("board.snapshots.v1", new TextEncoder().encode(JSON.stringify(s)));
const json = (b: Uint8Array) => JSON.parse(new TextDecoder().decode(b)) as unknown;

async function until(cond: () => boolean, ms = 10_000) {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 20));
  }
}

beforeAll(async () => {
  nc = await connect(testBusOptions());
  await deleteSnapshotStream(nc);
  await ensureBusStreams(nc);
  db = await freshDatabase(infra.databaseUrl);
  sub = nc.subscribe(BOARD_PUBLISHED_SUBJECT, { callback: (err, msg) => !err && heard.push(BoardPublishedEvent.parse(json(msg.data))) });
});

afterAll(async () => {
  sub?.unsubscribe();
  for (const b of boards) await b.stop();
  await nc.close();
  await db.drop();
});

describe("the board announces each publication that goes live", () => {
  it("with the state read's hashes and freshness and the commitment of the board, the proof head", async () => {
    boards.push(await startBoard(env()));
    await publish(fixtureSnapshot({ asofDaily: "2026-11-19", computedAt: "2026-11-19T13:00:00-08:00", seed: 1 }));
    await until(() => heard.length === 1);
    await publish(fixtureSnapshot({ asofDaily: "2026-11-20", computedAt: "2026-11-20T09:55:00-08:00", seed: 2, intraday: true }));
    await until(() => heard.length === 2);
    const state = BoardState.parse(json((await requestBytes(nc, boardRead, { view: "state" })).body));
    const proof = ProofView.parse(json((await requestBytes(nc, boardRead, { view: "proof" })).body));
    const event = heard[1]!;
    expect(event).toEqual({
      seq: proof.head!.seq,
      asof_daily: state.asof_daily,
      computed_at: state.computed_at,
      snapshot: state.snapshot,
      content_hash: proof.head!.content_hash,
      commitment: proof.head!.commitment,
      views: state.views,
      market_open: state.freshness.market_open,
      next_refresh_at: state.freshness.next_refresh_at,
    });
    expect(heard[0]!.seq).toBeLessThan(event.seq);
  });

  it("nothing for a board that does not go live (older than the live one); a replica that starts announces what it serves, under the same seq", async () => {
    const before = heard.length;
    await publish(fixtureSnapshot({ asofDaily: "2026-11-18", computedAt: "2026-11-18T13:00:00-08:00", seed: 4 }));
    await new Promise((r) => setTimeout(r, 1000));
    expect(heard.length).toBe(before);
    // A second replica renders the newest stored board at start: the same publication, the same seq.
    boards.push(await startBoard(env()));
    await until(() => heard.length === before + 1);
    expect(heard.at(-1)!.seq).toBe(heard[before - 1]!.seq);
    expect(heard.at(-1)!.snapshot).toBe(heard[before - 1]!.snapshot);
  });
});
