// What each board read returns, typed from proto. The body schema of a path is proto's own
// (VIEW_SCHEMAS of the route's view); this table only gives it a static type per path, and a
// unit test checks that each entry is the very schema proto serves the path with.

import {
  AsofSampleView,
  AsofView,
  ChangesView,
  NameHistoryView,
  RegimeHistoryView,
  BoardState,
  BoardStatus,
  BuylistView,
  CryptoNightView,
  CryptoView,
  FreeBoard,
  FullBoard,
  type HoldView,
  IndicesView,
  LeadersView,
  LiveFeedView,
  LiveRulesView,
  type LiveSetupView,
  MoversView,
  type NameDirectoryView,
  type NameView,
  PerfView,
  ProofView,
  RegimeView,
  ROUTE_BY_PATH,
  type SectorDirectoryView,
  SectorsView,
  type SectorView,
  SignalAuditView,
  SymbolDirectory,
  TopVolumeView,
  TradfiRiskView,
  VIEW_SCHEMAS,
  viewFor,
  type Route,
  type ViewName,
} from "@board/proto";
import { z } from "zod";

/** Every GET read of the board that answers a view, with the schema its body is checked against. */
export const READS = {
  "/api/board/agent": FullBoard,
  "/api/board/regime": RegimeView,
  "/api/board/buylist": BuylistView,
  "/api/board/indices": IndicesView,
  "/api/board/sectors": SectorsView,
  "/api/board/top-volume": TopVolumeView,
  "/api/board/name": VIEW_SCHEMAS.name as z.ZodType<NameView | NameDirectoryView>,
  "/api/board/leaders": LeadersView,
  "/api/board/movers": MoversView,
  "/api/board/sector": VIEW_SCHEMAS.sector as z.ZodType<SectorView | SectorDirectoryView>,
  "/api/board/crypto": CryptoView,
  "/api/board/crypto/night": CryptoNightView,
  "/api/board/tradfi-risk": TradfiRiskView,
  "/api/board/hold": VIEW_SCHEMAS.hold as z.ZodType<HoldView | NameDirectoryView>,
  "/api/board/free": FreeBoard,
  "/api/board/status": BoardStatus,
  "/api/board/symbols": SymbolDirectory,
  "/api/board/state": BoardState,
  // A date buys the dated board (AsofView); sample=1 reads the free sample day.
  "/api/board/asof": z.union([AsofView, AsofSampleView]),
  "/api/board/regime/history": RegimeHistoryView,
  "/api/board/name/history": NameHistoryView,
  "/api/board/changes": ChangesView,
  "/api/board/signal-audit": SignalAuditView,
  "/api/board/proof": ProofView,
  "/api/perf": PerfView,
  "/api/live/feed": LiveFeedView,
  "/api/live/rules": LiveRulesView,
  "/api/live/setup": VIEW_SCHEMAS["live-setup"] as z.ZodType<LiveSetupView | NameDirectoryView>,
} as const satisfies Record<string, z.ZodType>;

export type ReadPath = keyof typeof READS;
export type BodyOf<P extends ReadPath> = z.infer<(typeof READS)[P]>;
/** Query parameters of a read (sym, name, etf, preview, sample). */
export type Query = Record<string, string>;

export interface ReadRoute {
  route: Route;
  view: ViewName;
  /** True when this read costs nothing (a free route, or agent?preview=1). */
  free: boolean;
  schema: z.ZodType;
}

/** The catalogue entry of a read, or null when the path is not a board read. */
export function readRoute(path: string, query: Query = {}): ReadRoute | null {
  const route = ROUTE_BY_PATH.get(path);
  if (!route || !(path in READS)) return null;
  const { view, free } = viewFor(route, query);
  if (!view) return null;
  return { route, view, free, schema: VIEW_SCHEMAS[view] };
}
