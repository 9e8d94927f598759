// The four books: their titles and the index each one's regime reads (SCORING.md).

import type { BookCode } from "@board/proto";

export type BookDef = {
  code: BookCode;
  title: string;
  /** The index the regime verdict reads, carried on the index card. */
  index: string;
  /** How the verdict is decided: the equity rules, or the crypto trend rules. */
  rules: "equity" | "crypto";
  /** Macro only: the credit check, numerator over denominator above its 50-day average. */
  credit?: { num: string; den: string };
};

export const BOOKS: Record<BookCode, BookDef> = {
  spx: { code: "spx", title: "S&P 500", index: "SPY", rules: "equity" },
  qqq: { code: "qqq", title: "Nasdaq-100", index: "QQQ", rules: "equity" },
  macro: { code: "macro", title: "Macro and ETFs", index: "SPY", rules: "equity", credit: { num: "HYG", den: "IEF" } },
  crypto: { code: "crypto", title: "Crypto (long-only, UTC daily close)", index: "BTC-USD", rules: "crypto" },
};

/** The second asset the crypto rules read. */
export const CRYPTO_SECOND = "ETH-USD";
