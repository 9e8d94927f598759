import { DISCLAIMER, type BoardContent, type EngineRules, type LadderRule, type LaneRule, type LiveRule, type LiveRulesView } from "@board/proto";
import { readHead } from "./name-read.js";

type Content<T> = Omit<T, "freshness">;

/** "A from 80, B from 60, C below 60": labels best first, each from its lowest score. */
function labelText(labels: readonly { label: string; min: number }[]): string {
  return labels
    .map((l, i) => (l.min > 0 || i === 0 ? `${l.label} from ${l.min}` : `${l.label} below ${labels[i - 1]?.min ?? 0}`))
    .join(", ");
}

const list = (xs: readonly string[], word = "or") => (xs.length <= 1 ? (xs[0] ?? "") : `${xs.slice(0, -1).join(", ")} ${word} ${xs[xs.length - 1]}`);

function rungText(rung: LadderRule, rules: EngineRules): string {
  const open: string[] = [];
  if (rung.index) open.push("the book's index");
  if (rung.sectors === "above_sma50") open.push(`the sectors whose ETF is above its ${rules.regime.sector_sma_bars}-day average`);
  if (rung.sectors === "top_by_rs") open.push(`the top ${rules.regime.top_sectors} sectors by ${rules.regime.sector_rs_bars}-day return`);
  if (rung.names === "leaders_in_top_sectors") open.push("the leaders in those sectors");
  if (rung.names === "green_sectors") open.push("any name in a green sector");
  if (rung.names === "none" && open.length > 0) open.push("no single names");
  return `${rung.verdict} (${rung.stance}): ${open.length === 0 ? "nothing is permitted" : open.join(", ")}.`;
}

function laneText(name: string, rule: LaneRule): string {
  const who = [
    `${list(rule.states)} names`,
    ...(rule.light ? [`with the light ${rule.light}`] : []),
    ...(rule.max_gap_risk !== null ? [`overnight gap risk at most ${rule.max_gap_risk}`] : []),
    `liquidity ${rule.min_liquidity} or better`,
  ];
  const rank = rule.rank_by === "entry_q" ? "entry quality" : "opportunity score per point of ATR%";
  return `${name}: up to ${rule.size} permitted ${who.join(", ")}, ranked by ${rank}.`;
}

/** The rules in plain language, every number read from the engine's parameters. */
export function plainRules(r: EngineRules): LiveRule[] {
  const eq = r.regime.equity;
  const c = r.cadence;
  return [
    {
      topic: "cadence",
      text:
        `The board is rescored every ${c.refresh_minutes} minutes in US market hours (${c.timezone} time), at each open and close, ` +
        `and a morning board is published ${c.morning_lead_minutes} minutes before each open. The crypto book is refreshed on US weekdays only, ` +
        "on the UTC daily close. The feed changes with each publish; computed_at says when.",
    },
    {
      topic: "regime",
      text:
        `An equity book's verdict reads its index against its ${eq.index_sma_bars}-day average (a ${eq.index_band_pct}% band) and its breadth: ` +
        `below the average is RISK_OFF; under ${eq.index_only_below_breadth_50}% of members above their 50-day average is INDEX_ONLY; ` +
        `under ${eq.sectors_on_below_breadth_50}% is SECTORS_ON; NAMES_ON needs the index above rising averages with at least ` +
        `${eq.names_on_min_breadth_50}% of members above their 50-day and ${eq.names_on_min_breadth_200}% above their 200-day; otherwise SELECTIVE. ` +
        `The crypto book reads its two assets on the UTC daily close against their ${r.regime.crypto.sma_bars}-day average (a ${r.regime.crypto.band_pct}% band); ` +
        `where a verdict opens sectors, the crypto book's are ${list(r.regime.crypto.sectors, "and")}. ` +
        `A verdict changes only after ${r.regime.confirm_closes} closes in a row agree.`,
    },
    ...r.regime.ladder.map((rung) => ({ topic: "ladder", text: rungText(rung, r) })),
    { topic: "lanes", text: laneText("Risk-adjusted lane", r.lanes.risk_adjusted) },
    { topic: "lanes", text: laneText("Swing lane", r.lanes.swing) },
    {
      topic: "trigger",
      text:
        "A READY trigger is the bar on which a name entered READY, or a breakout bar while it is READY. The light is firing " +
        `when the trigger was on today's or yesterday's bar. States are read over the last ${r.state_history_bars} sessions.`,
    },
    {
      topic: "entry",
      text:
        "Only a permitted long setup (READY or SETUP, permitted by a book's ladder, liquid, not EXIT) has an entry window, a stop and targets. " +
        `The window comes from the trigger's pivot: after a pullback, ${r.entry_window.pullback_band_atr.below} ATR under to ` +
        `${r.entry_window.pullback_band_atr.above} ATR over the 21-day EMA of the trigger's bar; after a breakout, from its pivot ` +
        `(the highest high of the ${r.entry_window.pivot_bars} bars before it) to ${r.entry_window.pivot_above_atr} ATR above; ` +
        "for a SETUP, the pivot a breakout must clear. Never below the stop. " +
        `ATR is the ${r.atr_bars}-day Wilder average true range.`,
    },
    {
      topic: "stop",
      text:
        `Structural stop: just below the pullback low (the lowest low of the last ${r.stop.pullback_lookback_bars} bars less ${r.stop.pullback_buffer_atr} ATR) ` +
        `when the name is in a pullback and that stop lies ${r.stop.pullback_min_risk_atr} to ${r.stop.pullback_max_risk_atr} ATR under the price; ` +
        `otherwise ${r.stop.atr_multiple} ATR under the price. Risk per share is the price less the stop.`,
    },
    {
      topic: "targets",
      text: `Targets at ${list(r.targets_r.map((x) => `${x}R`), "and")}: the price plus that many times the risk per share.`,
    },
    {
      topic: "hold",
      text:
        `Hold labels by hold strength (0-100): ${labelText(r.hold.labels)}. The chandelier stop is the ${r.chandelier.high_bars}-day highest high ` +
        `less ${r.chandelier.atr_multiple} times the ${r.chandelier.atr_bars}-day ATR: the trailing line the hold read watches.`,
    },
    {
      topic: "conviction",
      text:
        "Conviction (0-100) blends opportunity, entry quality, hold strength, the entry state and leadership. " +
        `Labels: ${labelText(r.conviction.labels)}. A name no book's ladder permits reads at most ${r.conviction.unpermitted_max}.`,
    },
    {
      topic: "candidates",
      text: "The feed's candidates are the names in any lane of any book, each once, ranked by conviction, then opportunity.",
    },
  ];
}

/** /api/live/rules: the engine's parameters as the scanner published them, and the same rules in words. */
export function liveRulesView(board: BoardContent, rules: EngineRules): Content<LiveRulesView> {
  return { ...readHead(board), engine: rules, rules: plainRules(rules), disclaimer: DISCLAIMER };
}
