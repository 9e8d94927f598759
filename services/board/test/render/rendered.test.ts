import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { gzipBody, identityBody, renderView } from "../../src/render/rendered.js";

const freshness = { market_open: true, data_age_seconds: 42, next_refresh_at: "2026-11-20T10:05:00-05:00", poll_hint: "poll /api/board/state" };

describe("pre-rendered views", () => {
  const content = { product: "x", names: Array.from({ length: 2000 }, (_, i) => ({ sym: `S${i}`, v: i % 97 })) };
  const view = renderView(content);

  it("appends the freshness block as the last field of a valid JSON body", () => {
    const body = JSON.parse(identityBody(view, freshness).toString());
    expect(body).toEqual({ ...content, freshness });
    expect(Object.keys(body).at(-1)).toBe("freshness");
  });

  it("splices a valid gzip stream whose content equals the identity body", () => {
    for (const age of [0, 7, 123456]) {
      const f = { ...freshness, data_age_seconds: age };
      const zipped = gzipBody(view, f);
      expect(gunzipSync(zipped).equals(identityBody(view, f))).toBe(true);
    }
    expect(gzipBody(view, freshness).length).toBeLessThan(identityBody(view, freshness).length / 3);
  });

  it("handles an empty object and keeps a stable content hash as the ETag", () => {
    const empty = renderView({});
    expect(JSON.parse(gunzipSync(gzipBody(empty, freshness)).toString())).toEqual({ freshness });
    expect(renderView(content).etag).toBe(view.etag);
    expect(renderView({ ...content, product: "y" }).etag).not.toBe(view.etag);
  });
});
