import { freshnessTail, gzipTail, spliceGzip, spliceIdentity, type BoardReadMeta, type ContentEncoding, type ViewName } from "@board/proto";

/** Bytes of view templates kept per gateway: every view of two boards fits many times over. */
const MAX_BYTES = 64 * 1024 * 1024;

interface Template {
  etag: string;
  head: Buffer;
  crc: number | undefined;
  size: number | undefined;
  encoding: ContentEncoding;
}

/**
 * The fixed part of the views this gateway has served, by view, params and encoding, with
 * their ETag (the content hash of the view without freshness). A read names the ETag it keeps
 * and the board leaves the body out when it is still current, so a full board does not cross
 * the bus on every read; the board stays the judge of what is current, and the bytes served
 * are the board's own. Nothing here changes what a client is charged or allowed.
 */
export class ViewTemplates {
  private readonly byKey = new Map<string, Template>();
  private bytes = 0;

  static key(view: ViewName, params: Record<string, string>, encoding: ContentEncoding): string {
    const sorted = Object.keys(params)
      .sort()
      .map((k) => [k, params[k]]);
    return `${view}\n${encoding}\n${JSON.stringify(sorted)}`;
  }

  etagOf(key: string): string | undefined {
    return this.byKey.get(key)?.etag;
  }

  /**
   * The body of a reply the board left out, from the kept bytes and this read's freshness, as
   * the kept head and this read's tail: sent one after the other, never copied into one buffer
   * (a full board's 250 KB per read, and the garbage collections they cost). Null if they are gone.
   */
  body(key: string, meta: BoardReadMeta): readonly [Buffer, Buffer] | null {
    const t = this.byKey.get(key);
    if (!t || t.etag !== meta.etag || t.encoding !== meta.encoding) return null;
    this.byKey.delete(key);
    this.byKey.set(key, t); // most recently used last
    return [t.head, t.encoding === "gzip" ? gzipTail(t.crc ?? 0, t.size ?? 0, meta.freshness) : freshnessTail(meta.freshness)];
  }

  /**
   * Keeps the fixed part of a body the board sent whole. It is kept only if splicing this read's
   * freshness into it gives back exactly the bytes received, so a kept template can only ever
   * reproduce the board's own body.
   */
  remember(key: string, meta: BoardReadMeta, body: Uint8Array): void {
    const t = meta.template;
    if (!t || meta.status !== 200 || t.head_bytes > body.length) return;
    if (meta.encoding === "gzip" && (t.crc === undefined || t.size === undefined)) return;
    // A copy: the reply's bytes belong to the bus client's read buffer.
    const template: Template = { etag: meta.etag, head: Buffer.from(body.subarray(0, t.head_bytes)), crc: t.crc, size: t.size, encoding: meta.encoding };
    const again = template.encoding === "gzip" ? spliceGzip(template.head, template.crc ?? 0, template.size ?? 0, meta.freshness) : spliceIdentity(template.head, meta.freshness);
    if (!again.equals(body)) return;
    const old = this.byKey.get(key);
    if (old) this.bytes -= old.head.length;
    this.byKey.delete(key);
    this.byKey.set(key, template);
    this.bytes += template.head.length;
    for (const [k, v] of this.byKey) {
      if (this.bytes <= MAX_BYTES) break;
      this.byKey.delete(k);
      this.bytes -= v.head.length;
    }
  }
}
