import { createHash } from "node:crypto";
import zlib from "node:zlib";
import type { RenderedView } from "../render/rendered.js";

// The gzip member header render/rendered.ts writes: magic, deflate, no flags, no mtime, OS unknown.
const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0xff]);

/** Batches are a few kilobytes: the fastest level costs little per read and still compresses. */
export const BATCH_GZIP_LEVEL = 1;

export const weakEtag = (hash: string) => `W/"${hash.slice(0, 32)}"`;

export const sha256 = (...parts: (string | Buffer)[]) => {
  const h = createHash("sha256");
  for (const p of parts) h.update(p);
  return h.digest("hex");
};

/**
 * A view assembled per read from pieces serialized at publish time. Its body and gzip head
 * are built on first use, so a conditional read that matches the ETag builds neither; the
 * gzip head is one level-1 deflate of the (small) body, ended with a sync flush like a
 * pre-rendered view's, so gzipBody appends the freshness tail the same way.
 */
export function assembled(hash: string, pieces: readonly Buffer[]): RenderedView {
  let prefix: Buffer | undefined;
  let gzip: RenderedView["gzip"] | undefined;
  const view: RenderedView = {
    hash,
    etag: weakEtag(hash),
    get prefix() {
      return (prefix ??= Buffer.concat(pieces));
    },
    get gzip() {
      if (!gzip) {
        const body = view.prefix;
        const deflated = zlib.deflateRawSync(body, { level: BATCH_GZIP_LEVEL, finishFlush: zlib.constants.Z_SYNC_FLUSH });
        gzip = { head: Buffer.concat([GZIP_HEADER, deflated]), crc: zlib.crc32(body), size: body.length };
      }
      return gzip;
    },
  };
  return view;
}

/**
 * A pre-rendered view with a few more fields spliced in before the freshness block
 * (`middle` is `"field":value,`). The gzip head stays the view's pre-compressed one: the
 * middle follows it as stored deflate blocks, so a read compresses nothing.
 */
export function extended(base: RenderedView, middle: Buffer): RenderedView {
  let prefix: Buffer | undefined;
  let gzip: RenderedView["gzip"] | undefined;
  const hash = sha256(base.hash, middle);
  return {
    hash,
    etag: weakEtag(hash),
    get prefix() {
      return (prefix ??= Buffer.concat([base.prefix, middle]));
    },
    get gzip() {
      return (gzip ??= {
        head: Buffer.concat([base.gzip.head, ...storedBlocks(middle)]),
        crc: zlib.crc32(middle, base.gzip.crc),
        size: base.gzip.size + middle.length,
      });
    },
  };
}

/** Non-final stored deflate blocks holding `data` (the stream is byte aligned after a sync flush). */
function storedBlocks(data: Buffer): Buffer[] {
  const out: Buffer[] = [];
  for (let at = 0; at < data.length; at += 0xffff) {
    const chunk = data.subarray(at, at + 0xffff);
    const header = Buffer.alloc(5);
    header[0] = 0x00; // BFINAL=0, BTYPE=00
    header.writeUInt16LE(chunk.length, 1);
    header.writeUInt16LE(~chunk.length & 0xffff, 3);
    out.push(header, chunk);
  }
  return out;
}
