import { freshnessAt } from "@board/market-calendar";
import { honestFreshness, staleBlock } from "./views/staleness.js";
import type { BoardReadMeta, BoardReadRequest, ViewName } from "@board/proto";
import { BusError, type BytesReply } from "@board/service-kit";
import type { Publication, PublishedView } from "./publication.js";
import { gzipBody, identityBody } from "./render/rendered.js";

/** Views rendered from the delayed (previous trading day) board: absent until one exists. */
const DELAYED_VIEWS: ReadonlySet<ViewName> = new Set(["free", "preview", "delayed"]);

const EMPTY = new Uint8Array(0);
const NO_PARAMS: Readonly<Record<string, string>> = Object.freeze({});

export interface ReadDeps {
  publication: () => Publication | null;
  now: () => Date;
  refreshMinutes: number;
  /** The status view with live figures of other services (and whether the board is stale); the pre-rendered one when absent. */
  status?: (pub: Publication, stale: boolean) => PublishedView | undefined;
}

/**
 * board.v1.read: a lookup of pre-rendered bytes plus this moment's freshness block. The
 * parametrised views (name, hold, sector) join bytes rendered with the publication; a history
 * read comes `made` from the history tables, of the same publication.
 */
export function readView(deps: ReadDeps, req: Required<Pick<BoardReadRequest, "view">> & BoardReadRequest, made?: PublishedView): BytesReply<BoardReadMeta> {
  const pub = deps.publication();
  if (!pub) throw new BusError("snapshot_unavailable", 503, "no snapshot has been published yet");
  const now = deps.now();
  // The current snapshot's freshness, once per read: most views are of it, and it says whether the board is stale.
  const current = freshnessAt(now, new Date(pub.board.computed_at), deps.refreshMinutes, pub.board.provider.delay);
  const view =
    made ?? (req.view === "status" && deps.status ? deps.status(pub, staleBlock(current, deps.refreshMinutes)) : pub.views.get(req.view)) ?? resolveLookup(pub, req);
  if (!view) {
    if (DELAYED_VIEWS.has(req.view)) throw new BusError("snapshot_unavailable", 503, "no board of an earlier trading day is stored yet");
    throw new BusError("not_implemented", 501, `view ${req.view} is not rendered yet`);
  }
  const ofSnapshot = view.computedAt === pub.board.computed_at;
  // Only the current snapshot's views can be behind; a delayed view is a day old by design.
  // A redelivery carries the freshness it was first served with: the same bytes again.
  const freshness =
    req.freshness ?? (ofSnapshot ? honestFreshness(current, deps.refreshMinutes) : freshnessAt(now, new Date(view.computedAtMs), deps.refreshMinutes, view.dataDelay));
  const encoding = req.encoding ?? "identity";
  const meta = (status: 200 | 304): BoardReadMeta => ({
    status,
    etag: view.rendered.etag,
    encoding,
    freshness,
    asof_daily: view.asofDaily,
    computed_at: view.computedAt,
    ...(ofSnapshot && { snapshot: pub.snapshotHash, ...(pub.commitment && { commitment: pub.commitment }) }),
  });
  if (req.if_none_match && matchesEtag(req.if_none_match, view.rendered.etag)) return { meta: meta(304), body: EMPTY };
  // The caller keeps this very view's bytes: only this read's freshness travels.
  if (req.cached_etag === view.rendered.etag) return { meta: { ...meta(200), cached: true }, body: EMPTY };
  const r = view.rendered;
  if (encoding === "gzip") {
    return { meta: { ...meta(200), template: { head_bytes: r.gzip.head.length, crc: r.gzip.crc, size: r.gzip.size } }, body: gzipBody(r, freshness) };
  }
  return { meta: { ...meta(200), template: { head_bytes: r.prefix.length } }, body: identityBody(r, freshness) };
}

function resolveLookup(pub: Publication, req: BoardReadRequest): PublishedView | undefined {
  const found = pub.lookups.get(req.view);
  if (!found) return undefined;
  const { lookup, ...source } = found;
  return { ...source, rendered: lookup.resolve(req.params ?? NO_PARAMS) };
}

/** If-None-Match compares weakly (RFC 9110 13.1.2): W/ prefixes do not matter, * matches all. */
function matchesEtag(header: string, etag: string): boolean {
  const bare = (t: string) => t.trim().replace(/^W\//, "");
  const want = bare(etag);
  return header.split(",").some((t) => t.trim() === "*" || bare(t) === want);
}
