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
  months, the nearest quarter weighted most, and ranks it within the book.
- **The trend template** counts how many of eight classic conditions hold (\`tt_count\`, 0 to 8):
  the price above its medium and long averages, those averages stacked and rising, the price
  well off its yearly low and near its yearly high, and strong relative strength.
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
  strong trend in a tight range, not yet triggered), otherwise WAIT. \`days_in_state\` counts
  the sessions the name has been in its state, today included (64 means 64 or more).
- **The trigger and the light.** A READY trigger is the session on which a name entered
  READY, or a breakout session (a close above the prior twenty-day high on heavy volume)
  while it is READY. \`trigger\` says which (breakout or pullback) and \`trigger_date\` when,
  for the READY run that holds today or ended yesterday. The light is firing when that
  trigger was today's or yesterday's session, and cold otherwise: a name can stay READY for
  weeks with its light cold.
- **Leadership**, **growth** (the steadiness and slope of the last ninety days), **gap risk**
  (how large the name's overnight gaps are for its volatility; zero for crypto) and
  **liquidity** (average dollar volume of the last twenty completed sessions, tiers A to D;
  an intraday board leaves today's unfinished session out) complete the read.`,
  },
  {
    title: "Ranks, books and ties",
    body: `Every percentile (relative strength, closeness to the high, tightness, volume dry-up,
strength against the sector, growth, gap risk and opportunity) is ranked among the members of
one book, never across the whole universe, on a 1 to 99 scale: the lowest member is 1, the
highest 99, evenly by rank between. Members with equal values share their average rank; a
value that cannot be computed is not ranked and reads 50, as does a book with a single
member. The crypto book has two members, so its ranks are 1 and 99. Where a score blends a
percentile in, the percentile counts as a share of 99, so the top rank counts in full.
Opportunity's percentile ranks the score as published (to one decimal), so two names showing
the same opportunity share a rank; conviction is likewise computed from the published scores.

A name in two books (most Nasdaq-100 names are also in the S&P 500) is read once per book:
each book's lanes, leaders and index card rank it among that book's own members (the
Nasdaq-100 book among all of its 101), so its state, light and scores there are that book's.
The name record carries the reading of its first book (S&P 500 before Nasdaq-100), and
\`ranked_in\` names it. Cards of ETFs that are not members of the book (the S&P 500 and
Nasdaq-100 index cards, every sector card) carry the ETF's own reading in the macro book and
say so in \`ranked_in\`. Past sessions are read the same way: each session's trend template
ranks relative strength among the book's members on that session.`,
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
in the strongest sectors, or any name in a green sector. An index fund in a book that is not
the book's own index has no sector: only the last rung opens it, and only while it is above
its own medium average. The buy-list lanes take permitted
long setups only: a risk-adjusted lane (READY or SETUP names ranked by opportunity per unit of
volatility, liquid enough, without outsized gap risk) and a swing lane (READY names with the
light firing, ranked by entry quality).`,
  },
  {
    title: "Entry windows, stops and targets",
    body: `Only a permitted long setup carries levels: a READY or SETUP name that its book's ladder
permits, with liquidity C or better and a hold read above EXIT. Every other name says why not
(its state, the regime, liquidity or its hold read) and carries no window, stop or targets.

The entry window comes from the trigger's pivot, not from today's price, so a name can be
outside it: after a pullback, the band around the short trend line on the trigger's session
(half an ATR under to one and a half over); after a breakout, from the level it broke (the
prior twenty-day high) to one ATR above; for a SETUP, the level a breakout must clear. The
window never reaches below the stop. The structural stop sits just under the pullback's low,
or one and a half ATR under the price; targets sit at two and three times the risk above the
price.`,
  },
  {
    title: "Where the prices come from",
    body: `Every board says where its prices come from in \`provider\`: \`name\` (\`simulator\`, \`csv\` or
\`vendor\`), \`simulated\` (true when the prices are not market prices), and for a vendor its name in
\`vendor\` (\`polygon\` for Polygon.io, \`alpaca\` for Alpaca), its feed or plan in \`feed\` (Alpaca's
\`iex\` is one exchange's trades, \`sip\` all US exchanges; Polygon's plan decides how late its
prices are), and how late the prices are in \`delay\`: \`real_time\`, \`delayed_15m\` (the vendor's
15-minute delayed data, so an intraday board's last prices are at least 15 minutes old),
\`end_of_day\` (daily closing bars only: the board changes after each close, not during the
session), \`simulated\`, or \`recorded\` (recorded vendor responses replayed, not live prices).
Boards published before \`vendor\`, \`feed\` and \`delay\` were said carry none of them. The
landing page says the same in words, and shows the simulated-prices notice only for the
simulator. A board's \`freshness\` block says how old the board is, not how late its prices were
when it was computed: for that, read \`provider.delay\`.`,
  },
  {
    title: "Simulated data",
    body: `With the default provider every price and volume is simulated, and each snapshot says so in
\`provider\` (\`simulated: true\`); no real market data is claimed. Each name's starting price, daily dollar volume and,
for single stocks, daily volatility are drawn for a given seed from ranges typical of its kind.
Index membership stands in for size: a stock in both the S&P 500 and the Nasdaq-100, or one of
a handful of named giants, is treated as a mega cap (about $100 to $600 a share and $2 to $30
billion a day); a stock in only one index is a large cap (about $30 to $400 and $150 million to
$3 billion; Nasdaq-only names move more). Sector funds, other funds, the index funds (the S&P
500 fund near $500 to $700 and $25 to $40 billion a day) and the two crypto assets have ranges
of their own. Prices then follow the simulated market, so a later board drifts from its
starting levels.`,
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
