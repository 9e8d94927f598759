import { ensureBusStreams } from "@board/service-kit";
import { deleteSnapshotStream, fixtureSnapshot } from "@board/service-kit/testing";
import type { Snapshot } from "@board/proto";
import type { NatsConnection } from "nats";
import { publishBenchSeries } from "./series.js";

/** Names on the bench's boards: the whole universe, so the full board is as large as in production. */
export const BENCH_NAMES = 565;

/**
 * The load comes from one address and one key per tier row: the burst limits are lifted so what is measured is the checks' cost, not their refusals,
 * and so are the new keys and sign-ins per address (the bench makes hundreds of each from one address).
 */
export const NO_BURST = {
  BURST_CAPACITY: "100000",
  BURST_PER_SECOND: "100000",
  ANON_BURST_CAPACITY: "100000",
  ANON_BURST_PER_SECOND: "100000",
  FREE_KEYS_PER_ADDRESS_PER_HOUR: "1000000",
  SIGN_INS_PER_ADDRESS_PER_HOUR: "1000000",
};

/** The bus as a fresh stack needs it: an empty snapshot stream, and no served reads of earlier runs. */
export async function resetBenchStreams(nc: NatsConnection): Promise<void> {
  await deleteSnapshotStream(nc);
  await (await nc.jetstreamManager()).streams.delete("READS").catch(() => false);
  // The deploy step: services use the streams, never make them.
  await ensureBusStreams(nc);
}

/** Two trading days, as the integration tests publish them: the board serves the second. */
export const benchBoards = (): [Snapshot, Snapshot] => [
  fixtureSnapshot({ asofDaily: "2026-11-19", computedAt: "2026-11-19T13:00:00-08:00", seed: 1, names: BENCH_NAMES }),
  fixtureSnapshot({ asofDaily: "2026-11-20", computedAt: "2026-11-20T09:55:00-08:00", seed: 2, intraday: true, names: BENCH_NAMES }),
];

export async function publishBenchBoards(nc: NatsConnection): Promise<void> {
  const boards = benchBoards();
  for (const s of boards) await nc.jetstream().publish("board.snapshots.v1", new TextEncoder().encode(JSON.stringify(s)));
  // The first is the closing board, the one the free pages draw (the delayed board): its names' charts.
  await publishBenchSeries(nc, boards[0]);
}

/** The name page the bench reads: the delayed board's first name, drawn with its chart. */
export const benchNamePage = (): string => `/board/${benchBoards()[0].board.names[0]!.sym}`;

/** The sector page the bench reads: the delayed board's first name's sector that is not an index. */
export function benchSectorPage(): string {
  const sector = benchBoards()[0].board.names.map((n) => n.sector).find((s) => s !== "Index");
  if (sector === undefined) throw new Error("the bench board has no name in a sector");
  return `/board/sector/${sector.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "")}`;
}

/** Until the gateway at `base` serves the board of `asof` (the second of publishBenchBoards). */
export async function untilServing(base: string, asof = "2026-11-20", timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    const r = await fetch(`${base}/api/board/status`).catch(() => null);
    if (r?.status === 200 && ((await r.json()) as { asof_daily?: string }).asof_daily === asof) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the board did not serve ${asof} within ${timeoutMs / 1000} s`);
}
