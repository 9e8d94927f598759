import type { RenderedView } from "../render/rendered.js";
import { sha256 } from "./assemble.js";
import type { Lookup, SymBatch } from "./lookups.js";

/**
 * /api/live/setup: without `sym`, every name's setup (pre-rendered); with it, one to ten
 * symbols answered like /api/board/name (request order, once each, unknown ones listed, the
 * symbol directory when none is known).
 */
export class SetupLookup implements Lookup {
  readonly hash: string;

  constructor(
    private readonly batch: SymBatch,
    private readonly all: RenderedView,
  ) {
    this.hash = sha256(batch.hash, all.hash);
  }

  resolve(params: Readonly<Record<string, string>>): RenderedView {
    return params.sym === undefined ? this.all : this.batch.resolve(params);
  }
}
