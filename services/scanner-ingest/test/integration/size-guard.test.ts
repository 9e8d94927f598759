import { gzipSync } from "node:zlib";
import { FullBoard } from "@board/proto";
import { encodeSnapshotMessage } from "@board/service-kit";
import { testBusOptions } from "@board/service-kit/testing";
import { connect } from "nats";
import { expect, it } from "vitest";
import { MarketSimulator } from "../../src/market/simulator.js";
import { SNAPSHOT_MAX_BYTES } from "../../src/publish.js";
import { buildSnapshot } from "../../src/snapshot.js";
import { loadUniverse } from "../../src/universe.js";

it("the full snapshot and the full board view fit the server's max payload with room to spare", async () => {
  const nc = await connect(testBusOptions());
  const maxPayload = nc.info!.max_payload;
  await nc.close();
  const universe = loadUniverse();
  const snapshot = await buildSnapshot({
    universe,
    provider: new MarketSimulator(universe.entries, 42),
    at: new Date("2026-11-20T15:55:00Z"),
    intraday: true,
    asofDaily: "2026-11-20",
  });
  const snapshotBytes = Buffer.byteLength(JSON.stringify(snapshot));
  // The snapshot crosses the bus gzipped (publish.ts); the full board's plain bytes cross it as a read's reply.
  const messageBytes = encodeSnapshotMessage(Buffer.from(JSON.stringify(snapshot))).data.length;
  // The full board: the snapshot's board plus a freshness block. (The live tier's every-name
  // setup view, larger still, is measured on the real stack in test/integration/live-tier.test.ts.)
  const agent = JSON.stringify(
    FullBoard.parse({
      ...snapshot.board,
      freshness: { market_open: true, data_age_seconds: 999999, next_refresh_at: "2026-11-20T11:00:00-05:00", poll_hint: "x".repeat(300) },
    }),
  );
  const agentBytes = Buffer.byteLength(agent);
  console.log(
    `size guard: snapshot ${snapshotBytes} B (its message, gzip, ${messageBytes} B), agent view ${agentBytes} B (gzip ${gzipSync(agent).length} B), max payload ${maxPayload} B`,
  );
  expect(SNAPSHOT_MAX_BYTES).toBeLessThanOrEqual(maxPayload * 0.75);
  expect(messageBytes).toBeLessThanOrEqual(SNAPSHOT_MAX_BYTES);
  expect(agentBytes).toBeLessThanOrEqual(SNAPSHOT_MAX_BYTES);
});
