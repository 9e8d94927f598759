import zlib from "node:zlib";
import type { FreshnessBlock } from "../records/freshness.js";

/**
 * The wire form of a view's body, shared by the board (which renders views once per snapshot)
 * and the gateway (which keeps the bytes of views it has served): the view's JSON up to its
 * last field, then this read's freshness block as that last field. The gzip form is a fixed
 * deflate head (ended by a sync flush, so byte aligned and not final), the freshness tail as one
 * stored final block, and the gzip trailer. A read costs no JSON encoding and no compression.
 */
export const freshnessTail = (freshness: FreshnessBlock): Buffer => Buffer.from(`"freshness":${JSON.stringify(freshness)}}`);

/** `{...,` (the view's JSON up to where freshness goes) plus the tail. */
export function spliceIdentity(prefix: Uint8Array, freshness: FreshnessBlock): Buffer {
  return Buffer.concat([prefix, freshnessTail(freshness)]);
}

/** A valid single-member gzip stream of the same body: `crc` and `size` are the prefix's CRC-32 and length. */
export function spliceGzip(head: Uint8Array, crc: number, size: number, freshness: FreshnessBlock): Buffer {
  return Buffer.concat([head, gzipTail(crc, size, freshness)]);
}

/**
 * What follows the fixed deflate head in spliceGzip's stream: the freshness tail as a stored
 * final block, and the trailer. A caller that keeps the head sends the two without copying the
 * head into a new buffer per read.
 */
export function gzipTail(crc: number, size: number, freshness: FreshnessBlock): Buffer {
  const tail = freshnessTail(freshness);
  const stored = Buffer.alloc(5);
  stored[0] = 0x01; // BFINAL=1, BTYPE=00 (stored)
  stored.writeUInt16LE(tail.length, 1);
  stored.writeUInt16LE(~tail.length & 0xffff, 3);
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(zlib.crc32(tail, crc) >>> 0, 0);
  trailer.writeUInt32LE((size + tail.length) >>> 0, 4);
  return Buffer.concat([stored, tail, trailer]);
}
