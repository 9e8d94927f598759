import { createHash } from "node:crypto";
import zlib from "node:zlib";
import { spliceGzip, spliceIdentity, type FreshnessBlock } from "@board/proto";

/**
 * A view rendered once per snapshot. The freshness block changes every second, so it is
 * the one part written per read: the body is a fixed prefix plus a tiny tail, and the
 * gzip body a fixed deflate prefix (ended with a sync flush, so byte aligned and not
 * final) plus the tail as one stored final block and a trailer. A read costs no JSON
 * encoding and no compression of the view.
 */
export interface RenderedView {
  /** Strong content hash of the view (without freshness): the ETag and the state hash. */
  readonly hash: string;
  readonly etag: string;
  /** `{...,` — the view's JSON up to where the freshness field goes. */
  readonly prefix: Buffer;
  readonly gzip: { readonly head: Buffer; readonly crc: number; readonly size: number };
}

// Gzip member header: magic, deflate, no flags, no mtime, no extra flags, OS unknown.
const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0xff]);

export function renderView(content: Record<string, unknown>): RenderedView {
  const json = JSON.stringify(content);
  const hash = createHash("sha256").update(json).digest("hex");
  const prefix = Buffer.from(json.length > 2 ? `${json.slice(0, -1)},` : "{");
  const deflated = zlib.deflateRawSync(prefix, { level: 6, finishFlush: zlib.constants.Z_SYNC_FLUSH });
  return {
    hash,
    etag: `W/"${hash.slice(0, 32)}"`,
    prefix,
    gzip: { head: Buffer.concat([GZIP_HEADER, deflated]), crc: zlib.crc32(prefix), size: prefix.length },
  };
}

/** The view's JSON body with this read's freshness block as its last field. */
export function identityBody(view: RenderedView, freshness: FreshnessBlock): Buffer {
  return spliceIdentity(view.prefix, freshness);
}

/** The same body as a valid single-member gzip stream. */
export function gzipBody(view: RenderedView, freshness: FreshnessBlock): Buffer {
  return spliceGzip(view.gzip.head, view.gzip.crc, view.gzip.size, freshness);
}
