import { ensureBusStreams } from "@board/service-kit";
import { busEnv, deleteSnapshotStream, readSnapshotStream, testBusOptions } from "@board/service-kit/testing";
import { connect, type NatsConnection } from "nats";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ScannerEnv } from "../../src/env.js";
import { startScanner } from "../../src/start.js";
import { fixedClock } from "../support/clocks.js";

let nc: NatsConnection;
const env = ScannerEnv.parse({ ...busEnv("scanner-ingest"), HEALTH_PORT: 0, LOG_LEVEL: "warn" });
// A Saturday: the market is shut, so the scanner publishes the previous close and the weekend board.
const saturday = () => new Date("2026-11-21T18:00:00Z");

beforeAll(async () => {
  nc = await connect(testBusOptions());
  await deleteSnapshotStream(nc);
  await ensureBusStreams(nc);
});
afterAll(() => nc.close());

const streamSnapshots = () => readSnapshotStream(nc);

it("publishes the previous close and the current board on start, schema-valid, with its provider", async () => {
  const scanner = await startScanner(env, { clock: fixedClock(saturday()) });
  await scanner.ready;
  await scanner.stop();
  const published = await streamSnapshots();
  expect(published.map((s) => [s.board.asof_daily, s.board.intraday])).toEqual([
    ["2026-11-19", false],
    ["2026-11-20", false],
  ]);
  expect(published[0]!.board.computed_at).toBe("2026-11-19T13:00:00-08:00"); // the close, in Pacific time
  for (const s of published) {
    expect(s.board.names).toHaveLength(565);
    expect(s.board.provider).toMatchObject({ name: "simulator", simulated: true });
  }
});

it("a restart publishes the same previous close again as a duplicate, not a second snapshot", async () => {
  const scanner = await startScanner(env, { clock: fixedClock(saturday()) });
  await scanner.ready;
  await scanner.stop();
  const published = await streamSnapshots();
  expect(published.filter((s) => s.board.asof_daily === "2026-11-19")).toHaveLength(1);
});
