// The live tier end to end (SPEC.md 4.3 and 5): the real scanner's snapshots (simulated market,
// the engine section included) through JetStream, the board and the gateway, read with a
// live-feed license key and a bearer token minted from it; refused to a scanner license, to a
// bearer minted from one and to no credential; refreshed with each publish.

import { identityLicenseIssue, LiveFeedView, LiveRulesView, LiveSetupView, NameDirectoryView, type LicenseIssueReply } from "@board/proto";
import { request } from "@board/service-kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MarketSimulator } from "../../services/scanner-ingest/src/market/simulator.js";
import { buildSnapshot } from "../../services/scanner-ingest/src/snapshot.js";
import { loadUniverse } from "../../services/scanner-ingest/src/universe.js";
import { Stack, until } from "./harness.js";

const stack = new Stack();
const universe = loadUniverse();
const market = new MarketSimulator(universe.entries, 42);
const scan = (at: string, intraday: boolean, asofDaily: string) => buildSnapshot({ universe, provider: market, at: new Date(at), intraday, asofDaily });

let liveKey: string;
let liveClient: string;
let scannerKey: string;
let scannerClient: string;

const issue = (kind: "scanner" | "live_feed"): Promise<LicenseIssueReply> =>
  request(stack.nc, identityLicenseIssue, { kind, period: "monthly", holder: "live tier test" }, { timeoutMs: 5000 });

const get = (path: string, headers: Record<string, string> = {}) => fetch(`${stack.base}${path}`, { headers });

async function token(clientId: string, secret: string): Promise<string> {
  const res = await fetch(`${stack.base}/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ grant_type: "client_credentials", client_id: clientId, client_secret: secret }).toString(),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { access_token: string }).access_token;
}

async function body(res: Response): Promise<unknown> {
  expect(res.status, await res.clone().text().then((t) => t.slice(0, 300))).toBe(200);
  return res.json();
}

async function codeOf(res: Response): Promise<string> {
  return ((await res.json()) as { error: { code: string } }).error.code;
}

beforeAll(async () => {
  await stack.start({ metering: { BURST_CAPACITY: "100000", BURST_PER_SECOND: "100000" } });
  await stack.startBoard();
  // Thursday's closing board, then Friday 10:55 New York.
  await stack.publish(await scan("2026-11-19T21:00:00Z", false, "2026-11-19"));
  await stack.publish(await scan("2026-11-20T15:55:00Z", true, "2026-11-20"));
  await stack.untilServing("2026-11-20");
  const live = await issue("live_feed");
  const scanner = await issue("scanner");
  liveKey = live.key;
  liveClient = live.license.client_id;
  scannerKey = scanner.key;
  scannerClient = scanner.license.client_id;
}, 120_000);

afterAll(() => stack.stop());

describe("a live-feed license", () => {
  it("reads the feed, the rules and every setup, each valid against its proto schema", async () => {
    const headers = { "x-license-key": liveKey };
    const feedRes = await get("/api/live/feed", headers);
    expect(feedRes.headers.get("x-board-tier")).toBe("live_license");
    expect(feedRes.headers.get("x-board-data-age")).toMatch(/^\d+$/);
    const feed = LiveFeedView.parse(await body(feedRes));
    expect(feed.asof_daily).toBe("2026-11-20");
    expect(Object.keys(feed.books)).toEqual(["spx", "qqq", "macro", "crypto"]);
    expect(feed.candidates.length).toBeGreaterThan(0);
    for (const c of feed.candidates) {
      expect(c.permitted).toBe(true);
      expect(c.stop!).toBeLessThan(c.price);
      expect(c.targets!.map((t) => t.r)).toEqual([2, 3]);
      expect(c.targets![0]!.price).toBeGreaterThan(c.price);
      expect(c.lanes.length).toBeGreaterThan(0);
    }
    const rules = LiveRulesView.parse(await body(await get("/api/live/rules", headers)));
    expect(rules.engine).toMatchObject({ targets_r: [2, 3], stop: { atr_multiple: 1.5 }, cadence: { refresh_minutes: 5 } });
    const all = LiveSetupView.parse(await body(await get("/api/live/setup", headers)));
    expect(all.names).toHaveLength(universe.entries.length);
    expect(all.unknown).toEqual([]);
  });

  it("reads them with a bearer token minted from it too", async () => {
    const bearer = { authorization: `Bearer ${await token(liveClient, liveKey)}` };
    for (const [path, schema] of [
      ["/api/live/feed", LiveFeedView],
      ["/api/live/rules", LiveRulesView],
      ["/api/live/setup?sym=BTC-USD", LiveSetupView],
    ] as const) {
      const res = await get(path, bearer);
      expect(res.headers.get("x-board-tier"), path).toBe("bearer");
      schema.parse(await body(res));
    }
  });

  it("answers /api/live/setup?sym=AAPL,MSFT (or sym=AAPL&sym=MSFT) with those two, in that order", async () => {
    const v = LiveSetupView.parse(await body(await get("/api/live/setup?sym=AAPL,MSFT", { "x-license-key": liveKey })));
    expect(v.names.map((s) => s.sym)).toEqual(["AAPL", "MSFT"]);
    expect(v.unknown).toEqual([]);
    for (const s of v.names) expect(s.books.map((b) => b.book)).toEqual(s.bk);
    // The parameter repeated is the same list.
    expect(LiveSetupView.parse(await body(await get("/api/live/setup?sym=AAPL&sym=MSFT", { "x-license-key": liveKey }))).names).toEqual(v.names);
  });

  it("lists unknown symbols, answers the symbol directory when none is known, and refuses a bad sym", async () => {
    const headers = { "x-license-key": liveKey };
    const some = LiveSetupView.parse(await body(await get("/api/live/setup?sym=aapl,NOPE", headers)));
    expect(some.names.map((s) => s.sym)).toEqual(["AAPL"]);
    expect(some.unknown).toEqual(["NOPE"]);
    const none = NameDirectoryView.parse(await body(await get("/api/live/setup?sym=NOPE,ZZZ", headers)));
    expect(none.unknown).toEqual(["NOPE", "ZZZ"]);
    expect(none.count).toBe(universe.entries.length);
    const eleven = Array.from({ length: 11 }, (_, i) => `S${i}`);
    for (const bad of ["sym=", "sym=&sym=", `sym=${eleven.join(",")}`, eleven.map((s) => `sym=${s}`).join("&")]) {
      const res = await get(`/api/live/setup?${bad}`, headers);
      expect(res.status, bad).toBe(400);
      expect(await codeOf(res), bad).toBe("invalid_query");
    }
  });

  it("keeps the largest live view well under the bus's max payload (sizes printed)", async () => {
    const headers = { "x-license-key": liveKey, "accept-encoding": "identity" };
    const sizes: Record<string, number> = {};
    for (const path of ["/api/live/feed", "/api/live/rules", "/api/live/setup"]) sizes[path] = (await (await get(path, headers)).arrayBuffer()).byteLength;
    const max = stack.nc.info!.max_payload;
    console.log(`live views: ${JSON.stringify(sizes)} bytes, max payload ${max}`);
    for (const [path, bytes] of Object.entries(sizes)) expect(bytes, path).toBeLessThan(max * 0.75);
  });
});

describe("who is refused", () => {
  it("a scanner license gets 403 on every live path, and so does a bearer minted from it", async () => {
    const bearer = `Bearer ${await token(scannerClient, scannerKey)}`;
    for (const path of ["/api/live/feed", "/api/live/rules", "/api/live/setup?sym=AAPL"]) {
      const byKey = await get(path, { "x-license-key": scannerKey });
      expect(byKey.status, path).toBe(403);
      expect(await codeOf(byKey)).toBe("forbidden");
      const byToken = await get(path, { authorization: bearer });
      expect(byToken.status, path).toBe(403);
      await byToken.body?.cancel();
    }
    // The same license still reads the paid board routes.
    expect((await get("/api/board/buylist", { "x-license-key": scannerKey })).status).toBe(200);
  });

  it("no credential gets 401 with a bearer challenge", async () => {
    for (const path of ["/api/live/feed", "/api/live/rules", "/api/live/setup"]) {
      const res = await get(path);
      expect(res.status, path).toBe(401);
      expect(res.headers.get("www-authenticate"), path).toMatch(/^Bearer /);
      expect(await codeOf(res)).toBe("credential_required");
    }
  });
});

describe("refresh", () => {
  it("serves the next publish's feed: a new computed_at, ETag and levels", async () => {
    const headers = { "x-license-key": liveKey };
    const beforeRes = await get("/api/live/feed", headers);
    const before = LiveFeedView.parse(await body(beforeRes));
    const next = await scan("2026-11-20T16:00:00Z", true, "2026-11-20");
    await stack.publish(next);
    await until(async () => {
      const r = await fetch(`${stack.base}/api/board/status`);
      return ((await r.json()) as { computed_at: string }).computed_at === next.board.computed_at;
    });
    const afterRes = await get("/api/live/feed", headers);
    expect(afterRes.headers.get("etag")).not.toBe(beforeRes.headers.get("etag"));
    const after = LiveFeedView.parse(await body(afterRes));
    expect(after.computed_at).toBe(next.board.computed_at);
    expect(after.computed_at).not.toBe(before.computed_at);
    // Five minutes of the simulated market move the prices; the setups are the new scan's.
    const price = (v: { candidates: { sym: string; price: number }[] }) => new Map(v.candidates.map((c) => [c.sym, c.price]));
    const syms = ["AAPL", "MSFT", "SPY"];
    const setups = LiveSetupView.parse(await body(await get(`/api/live/setup?sym=${syms.join(",")}`, headers))).names;
    expect(setups.map((s) => s.sym)).toEqual(syms);
    for (const s of setups) {
      expect(s.price).toBe(next.board.names.find((n) => n.sym === s.sym)!.price);
      expect(s.stop).toBe(next.engine!.setups.find((e) => e.sym === s.sym)!.stop);
    }
    expect(price(after)).not.toEqual(price(before));
  });
});
