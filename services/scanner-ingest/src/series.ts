// Each board's per-name daily series: the closes and the averages the scoring read on each bar,
// published apart from the snapshot (one small message per name) so the snapshot stays small.

import { NAME_SERIES_SESSIONS, NameSeries, seriesSubject, type Snapshot } from "@board/proto";
import type { NatsConnection } from "@board/service-kit";
import type { NameBars } from "./scoring/board.js";
import { prepareBars, smaAt } from "./scoring/features.js";
import { WINDOWS } from "./scoring/weights.js";

/**
 * Every name's series for the board: its last NAME_SERIES_SESSIONS bars, each with SMA50, SMA200
 * and EMA21 computed by the very functions the scoring uses (prepareBars, smaAt) on the very bars
 * it scored, so a chart never shows a number the board was not computed from.
 */
export function* nameSeries(snapshot: Snapshot, bars: ReadonlyMap<string, NameBars>): Generator<NameSeries> {
  const { asof_daily, computed_at } = snapshot.board;
  // One name at a time: the publisher takes them as it sends, so a board's 12 MB of series never sit in memory at once.
  for (const n of snapshot.board.names) {
    const got = bars.get(n.sym);
    if (!got) continue;
    const p = prepareBars(got.bars);
    const from = Math.max(0, p.close.length - NAME_SERIES_SESSIONS);
    const idx = Array.from({ length: p.close.length - from }, (_, k) => from + k);
    yield {
      version: 1 as const,
      sym: n.sym,
      asof_daily,
      computed_at,
      dates: idx.map((i) => p.dates[i]!),
      close: idx.map((i) => p.close[i]!),
      sma50: idx.map((i) => smaAt(p, i, WINDOWS.sma50)),
      sma200: idx.map((i) => smaAt(p, i, WINDOWS.sma200)),
      ema21: idx.map((i) => p.ema21[i]!),
    };
  }
}

export interface SeriesPublished {
  messages: number;
  /** The messages' JSON, summed. */
  bytes: number;
  largest: number;
}

/** Series sent before their acknowledgements are awaited: enough to keep the bus busy, few enough to keep the scanner's heap small. */
const IN_FLIGHT = 32;

/** Publishes each name's series to the SERIES stream (its subject per session and name; the last one of a session is kept). */
export async function publishSeries(nc: NatsConnection, series: Iterable<NameSeries>): Promise<SeriesPublished> {
  const js = nc.jetstream();
  const encoder = new TextEncoder();
  let messages = 0;
  let bytes = 0;
  let largest = 0;
  let batch: Promise<unknown>[] = [];
  for (const s of series) {
    const data = encoder.encode(JSON.stringify(NameSeries.parse(s)));
    messages++;
    bytes += data.length;
    largest = Math.max(largest, data.length);
    batch.push(js.publish(seriesSubject(s.asof_daily, s.sym), data));
    if (batch.length >= IN_FLIGHT) {
      await Promise.all(batch);
      batch = [];
    }
  }
  await Promise.all(batch);
  return { messages, bytes, largest };
}
