import { BoardStatus, FreeBoard, FullBoard, SymbolDirectory, BoardState, type BoardContent, type FreshnessBlock, type ViewName } from "@board/proto";
import type { z } from "zod";
import { renderView, type RenderedView } from "./render/rendered.js";
import { freeView } from "./views/free.js";
import { previewView } from "./views/preview.js";
import { stateView } from "./views/state.js";
import { statusView } from "./views/status.js";
import { symbolsView } from "./views/symbols.js";

/** A rendered view and the board it was cut from (its age is that board's age). */
export interface PublishedView {
  readonly rendered: RenderedView;
  readonly asofDaily: string;
  readonly computedAt: string;
  readonly computedAtMs: number;
}

/** Everything one snapshot serves, swapped in as one object so a read never sees half of two. */
export interface Publication {
  readonly snapshotHash: string;
  readonly board: BoardContent;
  readonly views: ReadonlyMap<ViewName, PublishedView>;
}

export interface PublicationInput {
  current: BoardContent;
  currentHash: string;
  /** The latest stored board of an earlier trading day: the free reads' source. */
  delayed: BoardContent | null;
  snapshotsStored: number;
}

/** Stands in for the per-read block when a view is checked against its contract. */
const SAMPLE_FRESHNESS: FreshnessBlock = {
  market_open: false,
  data_age_seconds: 0,
  next_refresh_at: "2026-01-02T09:30:00-05:00",
  poll_hint: "sample",
};

function publish(board: BoardContent, content: object, schema: z.ZodObject): PublishedView {
  // Every view is checked against its contract once, at publish time, never per read.
  schema.parse({ ...content, freshness: SAMPLE_FRESHNESS });
  return {
    rendered: renderView(content as Record<string, unknown>),
    asofDaily: board.asof_daily,
    computedAt: board.computed_at,
    computedAtMs: Date.parse(board.computed_at),
  };
}

export function buildPublication(input: PublicationInput): Publication {
  const { current, delayed } = input;
  const views = new Map<ViewName, PublishedView>();
  views.set("agent", publish(current, current, FullBoard));
  views.set("symbols", publish(current, symbolsView(current), SymbolDirectory));
  if (delayed) {
    views.set("free", publish(delayed, freeView(delayed), FreeBoard));
    views.set("preview", publish(delayed, previewView(delayed), FullBoard));
  }
  views.set("status", publish(current, statusView(current, input.snapshotsStored, false), BoardStatus));
  const hashes = new Map([...views].map(([name, v]) => [name, v.rendered.hash]));
  views.set("state", publish(current, stateView(current, input.currentHash, hashes), BoardState));
  return { snapshotHash: input.currentHash, board: current, views };
}
