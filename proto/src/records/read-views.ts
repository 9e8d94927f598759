import { z } from "zod";
import { BookCode, IsoDate, IsoDateTime, PRODUCT, SectorLabel, Symbol } from "./common.js";
import { Card, LaneEntry } from "./book.js";
import { FreshnessBlock } from "./freshness.js";
import { HoldLabel, NameRecord, EntryState } from "./name-record.js";
import { RegimeVerdict, RegimeVerdictCode, Stance } from "./regime.js";
import { CryptoNight, CryptoSignal, TradfiRisk } from "./signals.js";
import { SectorDirectory, SymbolDirectory } from "./directory.js";

/** Fields every board read starts with: which board it was cut from. */
const head = {
  product: z.literal(PRODUCT),
  asof_daily: IsoDate,
  computed_at: IsoDateTime,
  intraday: z.boolean(),
};
const tail = { disclaimer: z.string(), freshness: FreshnessBlock };
const perBook = <T extends z.ZodType>(t: T) => z.record(BookCode, t);

/** A book's verdict in one line, as the reads that are not about regime carry it. */
export const VerdictLine = z.object({ verdict: RegimeVerdictCode, stance: Stance, line: z.string() });
export type VerdictLine = z.infer<typeof VerdictLine>;

export const RegimeView = z.object({ ...head, books: perBook(z.object({ title: z.string(), regime: RegimeVerdict })), ...tail });
export type RegimeView = z.infer<typeof RegimeView>;

export const BuylistView = z.object({
  ...head,
  books: perBook(z.object({ regime: VerdictLine, risk_adjusted: z.array(LaneEntry), swing: z.array(LaneEntry) })),
  ...tail,
});
export type BuylistView = z.infer<typeof BuylistView>;

export const IndicesView = z.object({ ...head, books: perBook(z.object({ index: Card, regime: VerdictLine })), ...tail });
export type IndicesView = z.infer<typeof IndicesView>;

export const SectorsView = z.object({
  ...head,
  sectors: z.array(Card.extend({ name: SectorLabel })),
  green_by_book: perBook(z.array(SectorLabel)),
  ...tail,
});
export type SectorsView = z.infer<typeof SectorsView>;

export const TopVolumeView = z.object({ ...head, sectors: z.record(SectorLabel, z.array(NameRecord)), ...tail });
export type TopVolumeView = z.infer<typeof TopVolumeView>;

/** A name's full read: its record plus its (first) book's verdict. */
export const NameRead = NameRecord.extend({ book: BookCode, regime: VerdictLine });
export type NameRead = z.infer<typeof NameRead>;

export const NameView = z.object({
  ...head,
  names: z.array(NameRead),
  /** Requested symbols the board does not carry; see /api/board/symbols. */
  unknown: z.array(z.string()),
  ...tail,
});
export type NameView = z.infer<typeof NameView>;

/** An unknown sym (every one unknown): the directory, in a 200. */
export const NameDirectoryView = SymbolDirectory.extend({ unknown: z.array(z.string()) });
export type NameDirectoryView = z.infer<typeof NameDirectoryView>;

export const LeadersView = z.object({ ...head, books: perBook(z.array(NameRead).max(10)), ...tail });
export type LeadersView = z.infer<typeof LeadersView>;

export const MoversView = z.object({ ...head, gainers: z.array(NameRead).max(10), losers: z.array(NameRead).max(10), ...tail });
export type MoversView = z.infer<typeof MoversView>;

export const SectorView = z.object({ ...head, sector: SectorLabel, etf: Card, members: z.array(NameRead), ...tail });
export type SectorView = z.infer<typeof SectorView>;

export const SectorDirectoryView = SectorDirectory.extend({
  product: z.literal(PRODUCT),
  unknown: z.object({ name: z.string().optional(), etf: z.string().optional() }),
  freshness: FreshnessBlock,
});
export type SectorDirectoryView = z.infer<typeof SectorDirectoryView>;

export const CryptoView = z.object({ ...head, crypto: CryptoSignal, ...tail });
export type CryptoView = z.infer<typeof CryptoView>;

export const CryptoNightView = z.object({ ...head, night: CryptoNight, ...tail });
export type CryptoNightView = z.infer<typeof CryptoNightView>;

export const TradfiRiskView = z.object({ ...head, tradfi: TradfiRisk, members: z.array(NameRead), ...tail });
export type TradfiRiskView = z.infer<typeof TradfiRiskView>;

export const HoldEntry = z.object({ sym: Symbol, name: z.string(), price: z.number(), hold_q: z.number(), hold_label: HoldLabel, state: EntryState });
export type HoldEntry = z.infer<typeof HoldEntry>;
export const HoldView = z.object({ ...head, names: z.array(HoldEntry), unknown: z.array(z.string()), ...tail });
export type HoldView = z.infer<typeof HoldView>;
