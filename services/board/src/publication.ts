import {
  BoardState,
  BoardStatus,
  BuylistView,
  CryptoNightView,
  CryptoView,
  FreeBoard,
  FullBoard,
  HoldView,
  IndicesView,
  LeadersView,
  LiveFeedView,
  LiveRulesView,
  LiveSetupView,
  MoversView,
  NameDirectoryView,
  NameView,
  RegimeView,
  SectorDirectoryView,
  SectorsView,
  SectorView,
  SymbolDirectory,
  TopVolumeView,
  TradfiRiskView,
  type BoardContent,
  type DataDelay,
  type FreshnessBlock,
  type NameSetup,
  type Snapshot,
  type ViewName,
} from "@board/proto";
import type { CommitmentRef, PerfView } from "@board/proto";
import type { z } from "zod";
import { renderView, type RenderedView } from "./render/rendered.js";
import { freeView } from "./views/free.js";
import { liveFeedView } from "./views/live-feed.js";
import { liveRulesView } from "./views/live-rules.js";
import { SetupLookup } from "./views/live-setup.js";
import { nameSetups } from "./views/live-setups.js";
import { holdEntry, SectorLookup, SymBatch, type Lookup } from "./views/lookups.js";
import { NameReads, readHead } from "./views/name-read.js";
import {
  buylistView,
  cryptoNightView,
  cryptoView,
  indicesView,
  leadersView,
  moversView,
  regimeView,
  topVolumeView,
  tradfiRiskView,
} from "./views/paid.js";
import { previewView } from "./views/preview.js";
import { sectorCards, sectorDirectory, sectorsView, sectorViews, type SectorCards } from "./views/sectors.js";
import { stateView } from "./views/state.js";
import { statusView } from "./views/status.js";
import { symbolsView } from "./views/symbols.js";

/** The board a view was cut from (its age is that board's age). */
export interface ViewSource {
  readonly asofDaily: string;
  readonly computedAt: string;
  readonly computedAtMs: number;
  /** How late the board's prices were (its provider's delay), for the freshness block; absent when the board did not say. */
  readonly dataDelay?: DataDelay;
}

/** A rendered view and the board it was cut from. */
export interface PublishedView extends ViewSource {
  readonly rendered: RenderedView;
}

/** A parametrised view (name, hold, sector, live-setup): answered per read from pieces rendered with the publication. */
export interface PublishedLookup extends ViewSource {
  readonly lookup: Lookup;
}

/** Everything one snapshot serves, swapped in as one object so a read never sees half of two. */
export interface Publication {
  readonly snapshotHash: string;
  readonly board: BoardContent;
  readonly views: ReadonlyMap<ViewName, PublishedView>;
  readonly lookups: ReadonlyMap<ViewName, PublishedLookup>;
  /** The status view's content, re-rendered when figures other services own (last settlement) change. */
  readonly status: Omit<BoardStatus, "freshness">;
  /** The snapshot's commitment in the proof chain (stored with it): what a paid read's receipt names. */
  readonly commitment?: CommitmentRef;
}

/** A view made outside this module (from the board's own records), rendered and checked like the others. */
export interface ExtraView {
  view: ViewName;
  board: BoardContent;
  content: object;
  schema: z.ZodObject;
}

export interface PublicationInput {
  current: BoardContent;
  currentHash: string;
  /**
   * The current snapshot's sector ETFs, engine selections and engine section. Without
   * `signals` the views made from them (leaders, movers, top-volume, crypto, crypto-night,
   * tradfi-risk) are not rendered; without `engine` the live views (live-feed, live-rules,
   * live-setup) are not; without `sector_etfs` the books' sector cards name the sector ETFs.
   */
  snapshot?: Pick<Snapshot, "sector_etfs" | "signals" | "engine">;
  /** The latest stored board of an earlier trading day: the free reads' source. */
  delayed: BoardContent | null;
  snapshotsStored: number;
  /** Views from the board's own records (proof, signal audit, perf, the sample day). */
  extraViews?: readonly ExtraView[];
}

/** Stands in for the per-read block when a view is checked against its contract. */
const SAMPLE_FRESHNESS: FreshnessBlock = {
  market_open: false,
  data_age_seconds: 0,
  next_refresh_at: "2026-01-02T09:30:00-05:00",
  poll_hint: "sample",
};

const sourceOf = (board: BoardContent): ViewSource => ({
  asofDaily: board.asof_daily,
  computedAt: board.computed_at,
  computedAtMs: Date.parse(board.computed_at),
  ...(board.provider.delay && { dataDelay: board.provider.delay }),
});

/** Checks a view against its contract (once, at publish time, never per read). */
function check(content: object, schema: z.ZodObject): void {
  schema.parse({ ...content, freshness: SAMPLE_FRESHNESS });
}

export function publish(board: BoardContent, content: object, schema: z.ZodObject): PublishedView {
  check(content, schema);
  return { rendered: renderView(content as Record<string, unknown>), ...sourceOf(board) };
}

export function buildPublication(input: PublicationInput): Publication {
  const { current, delayed } = input;
  const signals = input.snapshot?.signals;
  const engine = input.snapshot?.engine;
  const setups = engine ? nameSetups(current, engine) : null;
  const reads = new NameReads(current);
  const cards = sectorCards(current, input.snapshot?.sector_etfs);
  const views = new Map<ViewName, PublishedView>();
  const put = (view: ViewName, content: object, schema: z.ZodObject, board = current) => {
    const published = publish(board, content, schema);
    views.set(view, published);
    return published;
  };

  put("agent", current, FullBoard);
  put("regime", regimeView(current), RegimeView);
  put("buylist", buylistView(current), BuylistView);
  put("indices", indicesView(current), IndicesView);
  put("sectors", sectorsView(current, cards), SectorsView);
  if (signals) {
    put("top-volume", topVolumeView(current, signals, reads), TopVolumeView);
    put("leaders", leadersView(current, signals, reads), LeadersView);
    put("movers", moversView(current, signals, reads), MoversView);
    put("crypto", cryptoView(current, signals), CryptoView);
    put("crypto-night", cryptoNightView(current, signals), CryptoNightView);
    put("tradfi-risk", tradfiRiskView(current, signals, reads), TradfiRiskView);
  }
  if (engine && setups) {
    // Live tier; a snapshot without the engine section serves none of it (read answers 501).
    put("live-feed", liveFeedView(current, setups, engine.rules.targets_r), LiveFeedView);
    put("live-rules", liveRulesView(current, engine.rules), LiveRulesView);
  }
  const symbols = symbolsView(current);
  const directory = put("symbols", symbols, SymbolDirectory).rendered;
  if (delayed) {
    put("free", freeView(delayed), FreeBoard, delayed);
    put("preview", previewView(delayed), FullBoard, delayed);
    put("delayed", delayed, FullBoard, delayed);
  }
  const perf = input.extraViews?.find((v) => v.view === "perf")?.content as Pick<PerfView, "status" | "books"> | undefined;
  const status = statusView(current, input.snapshotsStored, perf ?? null);
  put("status", status, BoardStatus);
  for (const extra of input.extraViews ?? []) put(extra.view, extra.content, extra.schema, extra.board);

  const lookups = buildLookups(current, reads, cards, symbols, directory);
  if (setups) lookups.set("live-setup", { lookup: setupLookup(current, setups, directory), ...sourceOf(current) });
  const hashes = new Map<ViewName, string>([
    ...[...views].map(([name, v]): [ViewName, string] => [name, v.rendered.hash]),
    ...[...lookups].map(([name, l]): [ViewName, string] => [name, l.lookup.hash]),
  ]);
  put("state", stateView(current, input.currentHash, hashes), BoardState);
  return { snapshotHash: input.currentHash, board: current, views, lookups, status };
}

/** /api/live/setup: every setup checked and rendered now, as the whole view and as batch entries. */
function setupLookup(board: BoardContent, setups: ReadonlyMap<string, NameSetup>, directory: RenderedView): SetupLookup {
  const all = publish(board, { ...readHead(board), names: [...setups.values()], unknown: [], disclaimer: board.disclaimer }, LiveSetupView);
  return new SetupLookup(new SymBatch(board, setups, directory), all.rendered);
}

/** name, hold and sector: every entry and every sector rendered now, each checked against its contract. */
function buildLookups(
  board: BoardContent,
  reads: NameReads,
  cards: SectorCards,
  symbols: object,
  directory: RenderedView,
): Map<ViewName, PublishedLookup> {
  const head = readHead(board);
  const source = sourceOf(board);
  const sample = { unknown: ["SAMPLE"], disclaimer: board.disclaimer };
  check({ ...symbols, unknown: ["SAMPLE"] }, NameDirectoryView);

  check({ ...head, names: [...reads.bySym.values()], ...sample }, NameView);
  const name = new SymBatch(board, reads.bySym, directory);

  const holds = new Map(board.names.map((r) => [r.sym, holdEntry(r)]));
  check({ ...head, names: [...holds.values()], ...sample }, HoldView);
  const hold = new SymBatch(board, holds, directory);

  const sectors = sectorViews(board, cards, reads).map((content) => ({
    label: content.sector,
    etf: content.etf.sym,
    rendered: publish(board, content, SectorView).rendered,
  }));
  const dir = sectorDirectory(board, cards);
  check({ ...dir, unknown: { name: "sample", etf: "SAMPLE" } }, SectorDirectoryView);
  const sector = new SectorLookup(sectors, renderView(dir));

  return new Map<ViewName, PublishedLookup>([
    ["name", { lookup: name, ...source }],
    ["hold", { lookup: hold, ...source }],
    ["sector", { lookup: sector, ...source }],
  ]);
}
