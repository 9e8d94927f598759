import {
  DISCLAIMER,
  SectorLabel,
  type BoardContent,
  type BoardSignals,
  type Book,
  type BookCode,
  type BuylistView,
  type CryptoNightView,
  type CryptoView,
  type IndicesView,
  type LeadersView,
  type MoversView,
  type RegimeView,
  type TopVolumeView,
  type TradfiRiskView,
} from "@board/proto";
import { readHead, verdictLine, type NameReads } from "./name-read.js";

type Content<T> = Omit<T, "freshness">;

/** One entry per book of the board, in book order. */
function perBook<T>(board: BoardContent, f: (book: Book, code: BookCode) => T): Record<BookCode, T> {
  return Object.fromEntries(
    board.book_order.map((code) => {
      const book = board.books[code];
      if (!book) throw new Error(`snapshot has no book ${code}`);
      return [code, f(book, code)];
    }),
  ) as Record<BookCode, T>;
}

/** /api/board/regime: each book's verdict with its permission ladder. */
export function regimeView(board: BoardContent): Content<RegimeView> {
  return { ...readHead(board), books: perBook(board, (b) => ({ title: b.title, regime: b.regime })), disclaimer: DISCLAIMER };
}

/** /api/board/buylist: both lanes of every book, with the book's verdict. */
export function buylistView(board: BoardContent): Content<BuylistView> {
  return {
    ...readHead(board),
    books: perBook(board, (b, code) => ({ regime: verdictLine(board, code), risk_adjusted: b.lanes.risk_adjusted, swing: b.lanes.swing })),
    disclaimer: DISCLAIMER,
  };
}

/** /api/board/indices: each book's scored index row and verdict. */
export function indicesView(board: BoardContent): Content<IndicesView> {
  return { ...readHead(board), books: perBook(board, (b, code) => ({ index: b.index_card, regime: verdictLine(board, code) })), disclaimer: DISCLAIMER };
}

/** /api/board/top-volume: the engine's top names by adv20_usd in every sector, as name records. */
export function topVolumeView(board: BoardContent, signals: BoardSignals, reads: NameReads): Content<TopVolumeView> {
  return {
    ...readHead(board),
    sectors: Object.fromEntries(
      SectorLabel.options.map((label) => [label, (signals.top_volume[label] ?? []).map((sym) => reads.record(sym, `signals.top_volume.${label}`))]),
    ) as TopVolumeView["sectors"],
    disclaimer: DISCLAIMER,
  };
}

/** /api/board/leaders: the engine's top leadership names per book, each with the full read. */
export function leadersView(board: BoardContent, signals: BoardSignals, reads: NameReads): Content<LeadersView> {
  return {
    ...readHead(board),
    books: perBook(board, (_, code) => reads.all(signals.leaders[code] ?? [], `signals.leaders.${code}`)),
    disclaimer: DISCLAIMER,
  };
}

/** /api/board/movers: the day's top gainers and losers, each with the full read. */
export function moversView(board: BoardContent, signals: BoardSignals, reads: NameReads): Content<MoversView> {
  return {
    ...readHead(board),
    gainers: reads.all(signals.movers.gainers, "signals.movers.gainers"),
    losers: reads.all(signals.movers.losers, "signals.movers.losers"),
    disclaimer: DISCLAIMER,
  };
}

/** /api/board/crypto: the crypto gate per asset. */
export function cryptoView(board: BoardContent, signals: BoardSignals): Content<CryptoView> {
  return { ...readHead(board), crypto: signals.crypto, disclaimer: DISCLAIMER };
}

/** /api/board/crypto/night: what BTC and ETH did since the last US close. */
export function cryptoNightView(board: BoardContent, signals: BoardSignals): Content<CryptoNightView> {
  return { ...readHead(board), night: signals.crypto_night, disclaimer: DISCLAIMER };
}

/** /api/board/tradfi-risk: the macro book's risk read and the full read of every name in its groups. */
export function tradfiRiskView(board: BoardContent, signals: BoardSignals, reads: NameReads): Content<TradfiRiskView> {
  const syms = [...new Set(signals.tradfi_risk.groups.flatMap((g) => g.syms))];
  return { ...readHead(board), tradfi: signals.tradfi_risk, members: reads.all(syms, "signals.tradfi_risk"), disclaimer: DISCLAIMER };
}
