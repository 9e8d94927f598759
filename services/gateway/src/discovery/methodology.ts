/**
 * How the board scores the market, in prose (DECISIONS.md: published as prose in /llms.txt
 * and the docs, never as code or formulas). This module is the one copy: /llms.txt renders it,
 * and docs/methodology.md is generated from it (write-methodology.ts; a unit test fails when
 * the file and this module differ).
 */

export const METHODOLOGY_TITLE = "How the board scores the market";

export const METHODOLOGY_INTRO =
  "The board is a research publication built from public, well-known methods. It describes\n" +
  "historical and technical structure; it makes no claim about future returns, and its own\n" +
  "audit (`/api/board/signal-audit`) reports what happened after each board, decile by decile.";

export const METHODOLOGY_SECTIONS: readonly { readonly title: string; readonly body: string }[] = [
  {
    title: "Per name",
    body: `- **Relative strength** blends the name's returns over roughly three, six, nine and twelve
  months, the nearest quarter weighted most, and ranks it against the universe.
- **The trend template** counts how many of eight classic conditions hold: the price above
  its medium and long averages, those averages stacked and rising, the price well off its
  yearly low and near its yearly high, and strong relative strength.
- **Entry quality** rewards a price close to its short trend line, a range that has
  tightened, and volume that has dried up: a calm place to enter rather than a stretched one.
- **Opportunity** (0-100) blends relative strength, the trend template, closeness to the
  yearly high, strength against the name's sector, and entry quality; its percentile is
  taken within the book.
- **Hold strength** (0-100) asks whether the trend that carried the name is still intact:
  price above its medium average, medium above long, price above a volatility-based trailing
  stop, relative strength, and a rising long average. Labels run STRONG, HOLD, WEAKENING,
  TRIM, EXIT.
- **Entry state**, first match wins: FALLING (below its medium average and weakening),
  CHASE (too far above its short average for its volatility), READY (an uptrend with a
  pullback that reclaimed its short trend line, or a breakout on heavy volume), SETUP (a
  strong trend in a tight range, not yet triggered), otherwise WAIT. The light is firing on
  the day of a READY trigger and the day after.
- **Leadership**, **growth** (the steadiness and slope of the last ninety days), **gap risk**
  (how large the name's overnight gaps are for its volatility; zero for crypto) and
  **liquidity** (20-day average dollar volume, tiers A to D) complete the read.`,
  },
  {
    title: "Per book",
    body: `Each book (S&P 500, Nasdaq-100, macro, crypto) has a regime verdict from its index against
its long average and the share of members above their medium and long averages: NAMES_ON,
SELECTIVE, SECTORS_ON, INDEX_ONLY, RISK_OFF. A verdict changes only when two consecutive
closes agree, with a small band around the line so noise does not flip it; a verdict the
rules point to but that is not yet confirmed is shown as pending. The macro book also checks
credit (high yield against treasuries). The crypto book is long-only: Bitcoin and Ether
against their medium averages on the UTC daily close.

The verdict sets a permission ladder: nothing, the index only, sectors in uptrends, leaders
in the strongest sectors, or any name in a green sector. The buy-list lanes take permitted
names only: a risk-adjusted lane (READY or SETUP names ranked by opportunity per unit of
volatility, liquid enough, without outsized gap risk) and a swing lane (READY names with the
light firing, ranked by entry quality), each with an entry window, a structural stop and
targets at two and three times the risk.`,
  },
];

/** The prose with its section headings at `level` (2 in the docs, 3 inside /llms.txt's Methodology section). */
export function methodologyBody(level: number): string {
  const hashes = "#".repeat(level);
  return [METHODOLOGY_INTRO, ...METHODOLOGY_SECTIONS.map((s) => `${hashes} ${s.title}\n${s.body}`)].join("\n\n");
}

export const METHODOLOGY_DOC_PATH = "docs/methodology.md";

/** docs/methodology.md, exactly. */
export function methodologyDocument(): string {
  return (
    `# ${METHODOLOGY_TITLE}\n\n` +
    "<!-- Generated from services/gateway/src/discovery/methodology.ts, which /llms.txt also serves. Edit that file, then run:\n" +
    "     npx tsx services/gateway/src/discovery/write-methodology.ts -->\n\n" +
    `${methodologyBody(2)}\n`
  );
}
