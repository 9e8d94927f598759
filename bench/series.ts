import { NAME_SERIES_SESSIONS, NameSeries, seriesSubject, type Snapshot } from "@board/proto";
import type { NatsConnection } from "nats";

/**
 * A year of daily series for every name of a bench board, so the name page row draws a whole
 * chart as in production. The fixture boards have no bars, so the closes are a seeded walk
 * ending at each name's price and the averages are computed over it: the page's cost is the
 * same whatever the numbers are.
 */
export function benchSeries({ board }: Snapshot): NameSeries[] {
  const end = Date.parse(`${board.asof_daily}T00:00:00Z`);
  const dates = Array.from({ length: NAME_SERIES_SESSIONS }, (_, i) => new Date(end - (NAME_SERIES_SESSIONS - 1 - i) * 86_400_000).toISOString().slice(0, 10));
  return board.names.map((n, k) => {
    let x = n.price;
    let seed = k + 1;
    const back: number[] = [];
    for (let i = 0; i < NAME_SERIES_SESSIONS; i++) {
      back.push(x);
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      x *= 1 + ((seed / 2 ** 31 - 0.5) * 0.04);
    }
    const close = back.reverse();
    const sma = (w: number) => close.map((_, i) => { const from = Math.max(0, i - w + 1); return close.slice(from, i + 1).reduce((a, b) => a + b, 0) / (i + 1 - from); });
    const ema21: number[] = [];
    for (const [i, c] of close.entries()) ema21.push(i === 0 ? c : ema21[i - 1]! + (2 / 22) * (c - ema21[i - 1]!));
    return NameSeries.parse({ version: 1, sym: n.sym, asof_daily: board.asof_daily, computed_at: board.computed_at, dates, close, sma50: sma(50), sma200: sma(200), ema21 });
  });
}

/** Publishes each name's series where the scanner does (the SERIES stream, one message per session and name). */
export async function publishBenchSeries(nc: NatsConnection, snapshot: Snapshot): Promise<void> {
  const js = nc.jetstream();
  const encoder = new TextEncoder();
  await Promise.all(benchSeries(snapshot).map((s) => js.publish(seriesSubject(s.asof_daily, s.sym), encoder.encode(JSON.stringify(s)))));
}
