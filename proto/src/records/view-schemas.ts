import { z } from "zod";
import { FullBoard } from "./board.js";
import { LiveFeedView, LiveRulesView, LiveSetupView } from "./live.js";
import { SymbolDirectory } from "./directory.js";
import { AsofView, ChangesView, NameHistoryView, RegimeHistoryView } from "./history.js";
import { AsofSampleView, PerfView, ProofView, SignalAuditView } from "./proof-views.js";
import {
  BuylistView,
  CryptoNightView,
  CryptoView,
  HoldView,
  IndicesView,
  LeadersView,
  MoversView,
  NameDirectoryView,
  NameView,
  RegimeView,
  SectorDirectoryView,
  SectorsView,
  SectorView,
  TopVolumeView,
  TradfiRiskView,
} from "./read-views.js";
import { BoardState, BoardStatus, FreeBoard, type ViewName } from "./views.js";

/**
 * The body each view is served as, freshness block included: the one source the board
 * checks views against and the discovery documents describe. A name or sector read that
 * names nothing the board carries answers with a directory, hence the unions.
 */
export const VIEW_SCHEMAS: Record<ViewName, z.ZodType> = {
  agent: FullBoard,
  preview: FullBoard,
  delayed: FullBoard,
  free: FreeBoard,
  regime: RegimeView,
  buylist: BuylistView,
  indices: IndicesView,
  sectors: SectorsView,
  "top-volume": TopVolumeView,
  name: z.union([NameView, NameDirectoryView]),
  leaders: LeadersView,
  movers: MoversView,
  sector: z.union([SectorView, SectorDirectoryView]),
  crypto: CryptoView,
  "crypto-night": CryptoNightView,
  "tradfi-risk": TradfiRiskView,
  hold: z.union([HoldView, NameDirectoryView]),
  symbols: SymbolDirectory,
  status: BoardStatus,
  state: BoardState,
  "asof-sample": AsofSampleView,
  "signal-audit": SignalAuditView,
  proof: ProofView,
  perf: PerfView,
  "live-feed": LiveFeedView,
  "live-rules": LiveRulesView,
  "live-setup": z.union([LiveSetupView, NameDirectoryView]),
  asof: AsofView,
  "regime-history": RegimeHistoryView,
  "name-history": NameHistoryView,
  changes: ChangesView,
};
