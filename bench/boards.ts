import { fixtureSnapshot } from "@board/service-kit/testing";
import type { NatsConnection } from "nats";

/** Names on the bench's boards: the whole universe, so the full board is as large as in production. */
export const BENCH_NAMES = 565;

/** Two trading days, as the integration tests publish them: the board serves the second. */
export async function publishBenchBoards(nc: NatsConnection): Promise<void> {
  const publish = (s: unknown) => nc.jetstream().publish("board.snapshots.v1", new TextEncoder().encode(JSON.stringify(s)));
  await publish(fixtureSnapshot({ asofDaily: "2026-11-19", computedAt: "2026-11-19T13:00:00-08:00", seed: 1, names: BENCH_NAMES }));
  await publish(fixtureSnapshot({ asofDaily: "2026-11-20", computedAt: "2026-11-20T09:55:00-08:00", seed: 2, intraday: true, names: BENCH_NAMES }));
}
