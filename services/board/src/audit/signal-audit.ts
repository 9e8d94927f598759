import { PRODUCT, type SignalAuditView } from "@board/proto";
import { forwardPairs, pct, returnOf, type MarkedDay } from "./forward.js";

export const AUDIT_HORIZONS = [1, 5, 20] as const;
/** Below this many measured days for the shortest horizon the audit says so instead of reporting noise. */
export const MIN_DAYS = 5;

const STATES = ["READY", "SETUP", "WAIT", "CHASE", "FALLING"];

interface Acc {
  n: number;
  sum: number;
  hits: number;
}

/** Forward returns of committed boards, by entry state and opportunity decile, in excess of the book's index. */
export function signalAuditView(days: MarkedDay[]): Omit<SignalAuditView, "freshness"> {
  const horizons = AUDIT_HORIZONS.map((sessions) => {
    const pairs = forwardPairs(days, sessions);
    const byState = new Map<string, Acc>(STATES.map((s) => [s, { n: 0, sum: 0, hits: 0 }]));
    const byDecile = new Map<string, Acc>(Array.from({ length: 10 }, (_, i) => [`D${i + 1}`, { n: 0, sum: 0, hits: 0 }]));
    for (const [from, to] of pairs) {
      for (const [sym, [, state, decile, book]] of Object.entries(from.marks.names)) {
        const own = returnOf(sym, from, to);
        const bench = returnOf(from.marks.index[book], from, to);
        if (own === null || bench === null) continue;
        const excess = own - bench;
        for (const acc of [byState.get(state), byDecile.get(`D${decile}`)]) {
          if (!acc) continue;
          acc.n++;
          acc.sum += excess;
          if (excess > 0) acc.hits++;
        }
      }
    }
    const buckets = (m: Map<string, Acc>) =>
      [...m].map(([key, a]) => ({
        key,
        observations: a.n,
        mean_excess_pct: a.n ? pct(a.sum / a.n) : null,
        hit_rate_pct: a.n ? Math.round((a.hits / a.n) * 1000) / 10 : null,
      }));
    return { sessions, days_measured: pairs.length, by_state: buckets(byState), by_opp_decile: buckets(byDecile) };
  });
  const measured = horizons[0]?.days_measured ?? 0;
  const enough = measured >= MIN_DAYS;
  return {
    product: PRODUCT,
    status: enough ? "ok" : "insufficient_history",
    message: enough
      ? `Forward returns of ${days.length} committed trading days, measured against each name's book index. Past results; no claim about future returns.`
      : `Only ${measured} committed day(s) have a next-session close to measure against; the audit reports figures from ${MIN_DAYS} on. Nothing is estimated or filled in.`,
    committed_days: days.length,
    first_day: days[0]?.asofDaily ?? null,
    last_day: days.at(-1)?.asofDaily ?? null,
    horizons: enough ? horizons : horizons.map((h) => ({ ...h, by_state: [], by_opp_decile: [] })),
    method:
      "For each trading day's last committed board, each name's return over the next 1, 5 and 20 sessions minus its book index's return, grouped by the entry state and opportunity decile it had that day. A day counts only if its board was committed before the later board was computed.",
  };
}
