import { z } from "zod";
import { BookCode, Percentile, Score, SectorOrIndex, Symbol } from "./common.js";
import { EntryState, Light } from "./name-record.js";
import { EntryBasis, StopBasis } from "./levels.js";
import { RegimeVerdict } from "./regime.js";

/** An index or sector ETF scored like a name, and whether the book's verdict calls it green. */
export const Card = z.object({
  sym: Symbol,
  label: SectorOrIndex,
  score: Score,
  pct: Percentile,
  light: Light,
  state: EntryState,
  above_sma50: z.boolean(),
  green: z.boolean(),
  /** The book the card's figures are ranked in: the book itself for a member, else the name's own book (macro for ETFs). */
  ranked_in: BookCode,
});
export type Card = z.infer<typeof Card>;

export const Lane = z.enum(["risk_adjusted", "swing"]);
export type Lane = z.infer<typeof Lane>;

export const LaneEntry = z.object({
  sym: Symbol,
  rank: z.number().int().min(1),
  opp_score: Score,
  entry_q: Score,
  state: EntryState,
  light: Light,
  is_leader: z.boolean(),
  price: z.number().positive(),
  atr_pct: z.number().min(0),
  entry_window: z.object({ low: z.number().positive(), high: z.number().positive() }),
  entry_basis: EntryBasis,
  stop: z.number().positive(),
  stop_basis: StopBasis,
  targets: z.tuple([z.number().positive(), z.number().positive()]),
});
export type LaneEntry = z.infer<typeof LaneEntry>;

export const Book = z.object({
  code: BookCode,
  title: z.string().min(1),
  members: z.number().int().min(0),
  regime: RegimeVerdict,
  index_card: Card,
  sector_cards: z.array(Card),
  lanes: z.object({ risk_adjusted: z.array(LaneEntry), swing: z.array(LaneEntry) }),
});
export type Book = z.infer<typeof Book>;
