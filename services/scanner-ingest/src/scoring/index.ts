// The scoring's public face: the board scorer and the helpers other modules and tests use.

export { scoreBoard, type BookReading, type CryptoQuotes, type NameBars, type ScoreInput, type ScoredBoard } from "./board.js";
export { BOOKS, CRYPTO_SECOND, type BookDef } from "./books.js";
export { percentileRanks, percentileRanksWithin } from "./percentile.js";
export type { CryptoQuote } from "./signals.js";
export { HISTORY_BARS } from "./weights.js";
