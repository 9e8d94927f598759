import { createHash } from "node:crypto";
import { MAX_BATCH, type BoardContent, type HoldView, type NameRead, type NameRecord, type NameSetup } from "@board/proto";
import { BusError } from "@board/service-kit";
import type { RenderedView } from "../render/rendered.js";
import { assembled, extended, sha256 } from "./assemble.js";
import { readHead } from "./name-read.js";

/** A view answered per read from pieces rendered once per snapshot: name, hold, sector and live-setup. */
export interface Lookup {
  /** A hash over everything the view can answer: what /api/board/state lists for it. */
  readonly hash: string;
  /** The response to one read's parameters. Never encodes more than the read's own few values. */
  resolve(params: Readonly<Record<string, string>>): RenderedView;
}

type HoldEntry = HoldView["names"][number];

/** A name's hold read: strength, label and entry state. */
export function holdEntry(r: NameRecord): HoldEntry {
  return { sym: r.sym, name: r.name, price: r.price, hold_q: r.hold_q, hold_label: r.hold_label, state: r.state };
}

interface Fragment {
  readonly json: Buffer;
  readonly digest: Buffer;
}

const COMMA = Buffer.from(",");

/** The symbols of a `sym` parameter, as the gateway sends them (upper-cased, trimmed, comma-joined). */
export function symList(raw: string | undefined): string[] {
  if (raw === undefined) return [];
  const syms: string[] = [];
  for (const part of raw.split(",")) {
    const sym = part.trim().toUpperCase();
    if (sym.length > 0) syms.push(sym);
  }
  if (syms.length > MAX_BATCH) throw new BusError("invalid_request", 400, `at most ${MAX_BATCH} symbols per read`, "sym");
  return syms;
}

/**
 * /api/board/name, /api/board/hold and /api/live/setup: one to ten symbols. Each symbol's entry is JSON
 * text rendered once per snapshot; a read joins the entries it asks for, in request
 * order and once each, lists the symbols the board does not carry in `unknown`, and
 * answers the symbol directory (with `unknown`) when it carries none of them.
 */
export class SymBatch implements Lookup {
  readonly hash: string;
  private readonly fragments: ReadonlyMap<string, Fragment>;
  /** `{"product":...,"intraday":...,"names":[` */
  private readonly open: Buffer;
  /** `,"disclaimer":"...",` */
  private readonly close: Buffer;
  private readonly base: Buffer;

  constructor(
    board: BoardContent,
    entries: ReadonlyMap<string, NameRead | HoldEntry | NameSetup>,
    private readonly directory: RenderedView,
  ) {
    const head = JSON.stringify(readHead(board));
    this.open = Buffer.from(`${head.slice(0, -1)},"names":[`);
    this.close = Buffer.from(`,"disclaimer":${JSON.stringify(board.disclaimer)},`);
    this.base = createHash("sha256").update(this.open).update(this.close).digest();
    const fragments = new Map<string, Fragment>();
    const all = createHash("sha256").update(this.base).update(directory.hash);
    for (const [sym, entry] of entries) {
      const json = Buffer.from(JSON.stringify(entry));
      const digest = createHash("sha256").update(json).digest();
      fragments.set(sym, { json, digest });
      all.update(digest);
    }
    this.fragments = fragments;
    this.hash = all.digest("hex");
  }

  resolve(params: Readonly<Record<string, string>>): RenderedView {
    const found: Fragment[] = [];
    const unknown: string[] = [];
    const seen: string[] = [];
    for (const sym of symList(params.sym)) {
      if (seen.includes(sym)) continue;
      seen.push(sym);
      const f = this.fragments.get(sym);
      if (f) found.push(f);
      else unknown.push(sym);
    }
    const unknownJson = JSON.stringify(unknown);
    if (found.length === 0) return extended(this.directory, Buffer.from(`"unknown":${unknownJson},`));
    const pieces: Buffer[] = [this.open];
    const hash = createHash("sha256").update(this.base);
    found.forEach((f, i) => {
      if (i > 0) pieces.push(COMMA);
      pieces.push(f.json);
      hash.update(f.digest);
    });
    pieces.push(Buffer.from(`],"unknown":${unknownJson}`), this.close);
    return assembled(hash.update(unknownJson).digest("hex"), pieces);
  }
}

/**
 * /api/board/sector: `name` (a sector label, any case) or `etf` (the sector's ETF). Each
 * sector's response is pre-rendered; an unknown value, two that name different sectors,
 * or neither answers the sector directory with the offending values in `unknown`.
 */
export class SectorLookup implements Lookup {
  readonly hash: string;
  private readonly byLabel = new Map<string, RenderedView>();
  private readonly byEtf = new Map<string, RenderedView>();

  constructor(
    sectors: readonly { label: string; etf: string; rendered: RenderedView }[],
    private readonly directory: RenderedView,
  ) {
    for (const s of sectors) {
      this.byLabel.set(s.label.toLowerCase(), s.rendered);
      this.byEtf.set(s.etf.toUpperCase(), s.rendered);
    }
    this.hash = sha256(...sectors.map((s) => s.rendered.hash), directory.hash);
  }

  resolve(params: Readonly<Record<string, string>>): RenderedView {
    const name = params.name?.trim();
    const etf = params.etf?.trim();
    const byName = name === undefined ? undefined : this.byLabel.get(name.toLowerCase());
    const byEtf = etf === undefined ? undefined : this.byEtf.get(etf.toUpperCase());
    const conflict = byName !== undefined && byEtf !== undefined && byName !== byEtf;
    const unknown: { name?: string; etf?: string } = {};
    if (name !== undefined && (!byName || conflict)) unknown.name = name;
    if (etf !== undefined && (!byEtf || conflict)) unknown.etf = etf;
    const hit = byName ?? byEtf;
    if (hit && unknown.name === undefined && unknown.etf === undefined) return hit;
    return extended(this.directory, Buffer.from(`"unknown":${JSON.stringify(unknown)},`));
  }
}
