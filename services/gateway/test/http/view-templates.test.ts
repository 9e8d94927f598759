import { spliceGzip, spliceIdentity, type BoardReadMeta, type FreshnessBlock } from "@board/proto";
import { gunzipSync } from "node:zlib";
import zlib from "node:zlib";
import { describe, expect, it } from "vitest";
import { ViewTemplates } from "../../src/http/view-templates.js";

const freshness = (age: number): FreshnessBlock => ({ market_open: true, data_age_seconds: age, next_refresh_at: "2026-11-20T10:00:00-05:00", poll_hint: "poll" });
const prefix = Buffer.from('{"a":1,"b":[1,2,3],');
const meta = (over: Partial<BoardReadMeta>): BoardReadMeta => ({
  status: 200,
  etag: 'W/"e1"',
  encoding: "identity",
  freshness: freshness(5),
  asof_daily: "2026-11-20",
  computed_at: "2026-11-20T09:55:00-08:00",
  ...over,
});
const key = ViewTemplates.key("free", {}, "identity");

describe("ViewTemplates", () => {
  it("keeps a body the board sent whole and splices later freshness into it", () => {
    const views = new ViewTemplates();
    const m = meta({ template: { head_bytes: prefix.length } });
    views.remember(key, m, spliceIdentity(prefix, m.freshness));
    expect(views.etagOf(key)).toBe('W/"e1"');
    const later = views.body(key, meta({ cached: true, freshness: freshness(65) }));
    expect(JSON.parse(Buffer.concat(later!).toString())).toEqual({ a: 1, b: [1, 2, 3], freshness: freshness(65) });
    expect(Buffer.concat(later!).equals(spliceIdentity(prefix, freshness(65)))).toBe(true);
  });

  it("gives every read the one kept head, never a copy of it", () => {
    const views = new ViewTemplates();
    const m = meta({ template: { head_bytes: prefix.length } });
    views.remember(key, m, spliceIdentity(prefix, m.freshness));
    const [head1, tail1] = views.body(key, meta({ cached: true, freshness: freshness(6) }))!;
    const [head2, tail2] = views.body(key, meta({ cached: true, freshness: freshness(7) }))!;
    expect(head1).toBe(head2);
    expect(head1.equals(prefix)).toBe(true);
    expect(tail1.toString()).toBe(`"freshness":${JSON.stringify(freshness(6))}}`);
    expect(tail2.toString()).toBe(`"freshness":${JSON.stringify(freshness(7))}}`);
  });

  it("splices gzip into a stream that decodes to the same body", () => {
    const views = new ViewTemplates();
    const deflated = zlib.deflateRawSync(prefix, { finishFlush: zlib.constants.Z_SYNC_FLUSH });
    const head = Buffer.concat([Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]), deflated]);
    const m = meta({ encoding: "gzip", template: { head_bytes: head.length, crc: zlib.crc32(prefix), size: prefix.length } });
    const gz = ViewTemplates.key("free", {}, "gzip");
    views.remember(gz, m, spliceGzip(head, zlib.crc32(prefix), prefix.length, m.freshness));
    const later = views.body(gz, meta({ encoding: "gzip", cached: true, freshness: freshness(9) }));
    expect(JSON.parse(gunzipSync(Buffer.concat(later!)).toString()).freshness).toEqual(freshness(9));
    // Byte for byte the stream the board itself sends for that freshness.
    expect(Buffer.concat(later!).equals(spliceGzip(head, zlib.crc32(prefix), prefix.length, freshness(9)))).toBe(true);
  });

  it("keeps nothing that would not give back the board's own bytes", () => {
    const views = new ViewTemplates();
    const m = meta({ template: { head_bytes: prefix.length - 1 } });
    views.remember(key, m, spliceIdentity(prefix, m.freshness));
    expect(views.etagOf(key)).toBeUndefined();
    views.remember(key, meta({}), spliceIdentity(prefix, freshness(5))); // no template given
    expect(views.etagOf(key)).toBeUndefined();
  });

  it("answers nothing for another ETag or encoding than it keeps", () => {
    const views = new ViewTemplates();
    const m = meta({ template: { head_bytes: prefix.length } });
    views.remember(key, m, spliceIdentity(prefix, m.freshness));
    expect(views.body(key, meta({ cached: true, etag: 'W/"e2"' }))).toBeNull();
    expect(views.body(key, meta({ cached: true, encoding: "gzip" }))).toBeNull();
  });

  it("keys by view, encoding and params whatever their order", () => {
    expect(ViewTemplates.key("name", { sym: "A", x: "1" }, "identity")).toBe(ViewTemplates.key("name", { x: "1", sym: "A" }, "identity"));
    expect(ViewTemplates.key("name", { sym: "A" }, "identity")).not.toBe(ViewTemplates.key("name", { sym: "B" }, "identity"));
  });
});
