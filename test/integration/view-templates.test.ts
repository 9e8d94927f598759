import http from "node:http";
import { gunzipSync } from "node:zlib";
import { boardRead, BoardReadRequest, BUS_META_HEADER, FreeBoard, FullBoard, inboxPrefixOf } from "@board/proto";
import { fixtureSnapshot } from "@board/service-kit/testing";
import type { Subscription } from "nats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Stack, until } from "./harness.js";

// The gateway keeps the bytes of views it served and names their ETag on the next read; the
// board leaves the body out while that ETag is current. Watched on the real bus: the read
// requests (what the gateway asks) and their replies (what crosses back).
const stack = new Stack();
const asks: { view: string; encoding: string; cached: boolean }[] = [];
const replyBytes: number[] = [];
const subs: Subscription[] = [];

beforeAll(async () => {
  await stack.start();
  await stack.startBoard();
  await stack.publishTwoDays();
  await stack.untilServing();
  subs.push(
    stack.nc.subscribe(boardRead.subject, {
      callback: (_e, m) => {
        const r = BoardReadRequest.parse(m.json());
        asks.push({ view: r.view, encoding: r.encoding ?? "identity", cached: r.cached_etag !== undefined });
      },
    }),
    // The gateway's replies come to its own inbox prefix.
    stack.nc.subscribe(`${inboxPrefixOf("gateway")}.>`, { callback: (_e, m) => void (m.headers?.get(BUS_META_HEADER) && replyBytes.push(m.data.length)) }),
  );
  await stack.nc.flush();
});
afterAll(async () => {
  for (const s of subs) s.unsubscribe();
  await stack.stop();
});

const free = () => fetch(`${stack.base}/api/board/free`, { headers: { "accept-encoding": "identity" } });
/** The raw bytes of a gzip read (fetch would decode them). */
const freeGzip = () =>
  new Promise<{ encoding: string | undefined; body: Buffer }>((resolve, reject) => {
    http
      .get(`${stack.base}/api/board/free`, { headers: { "accept-encoding": "gzip" } }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ encoding: res.headers["content-encoding"], body: Buffer.concat(chunks) }));
      })
      .on("error", reject);
  });
const settle = () => new Promise((r) => setTimeout(r, 100));

describe("views kept by the gateway", () => {
  it("the first read carries the body; later reads carry only freshness, and serve the same bytes", async () => {
    asks.length = 0;
    replyBytes.length = 0;
    const first = await (await free()).text();
    const second = await (await free()).text();
    await settle();
    expect(asks.filter((a) => a.view === "free").map((a) => a.cached)).toEqual([false, true]);
    expect(replyBytes[0]).toBeGreaterThan(1000);
    expect(replyBytes[1]).toBe(0);
    const strip = (t: string) => JSON.stringify({ ...FreeBoard.parse(JSON.parse(t)), freshness: null });
    expect(strip(second)).toBe(strip(first));
    expect(second.length).toBeGreaterThan(1000);
  });

  it("keeps gzip bytes apart from plain ones, and splices a valid gzip stream", async () => {
    asks.length = 0;
    const a = await freeGzip();
    const b = await freeGzip();
    await settle();
    expect(asks.filter((x) => x.view === "free").map((x) => [x.encoding, x.cached])).toEqual([
      ["gzip", false],
      ["gzip", true],
    ]);
    expect([a.encoding, b.encoding]).toEqual(["gzip", "gzip"]);
    const unzipped = [a, b].map((r) => FreeBoard.parse(JSON.parse(gunzipSync(r.body).toString())));
    expect(unzipped.map((u) => u.asof_daily)).toEqual(["2026-11-19", "2026-11-19"]);
    expect(JSON.stringify({ ...unzipped[1], freshness: null })).toBe(JSON.stringify({ ...unzipped[0], freshness: null }));
  });

  it("never serves kept bytes of an older board: a new snapshot's first read carries its body", async () => {
    const preview = () => fetch(`${stack.base}/api/board/agent?preview=1`, { headers: { "accept-encoding": "identity" } });
    const before = FullBoard.parse(await (await preview()).json());
    await preview();
    await stack.publish(fixtureSnapshot({ asofDaily: "2026-11-23", computedAt: "2026-11-23T09:55:00-08:00", seed: 5, intraday: true }));
    await stack.untilServing("2026-11-23");
    asks.length = 0;
    replyBytes.length = 0;
    const after = FullBoard.parse(await (await preview()).json());
    await settle();
    // The preview is the previous day's board: it moved from 2026-11-19 to 2026-11-20.
    expect(before.asof_daily).toBe("2026-11-19");
    expect(after.asof_daily).toBe("2026-11-20");
    expect(asks.filter((a) => a.view === "preview")[0]?.cached).toBe(true);
    expect(replyBytes[0]).toBeGreaterThan(1000);
    await until(async () => FreeBoard.parse(await (await free()).json()).asof_daily === "2026-11-20");
  });
});
