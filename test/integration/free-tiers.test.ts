import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Stack } from "./harness.js";

/** Identity and metering run on this clock: days and idle expiry move when the test says. */
const clock = { t: Date.parse("2026-11-20T15:00:00Z") };
const now = () => new Date(clock.t);
const DAY = 86_400_000;

const stack = new Stack();

beforeAll(async () => {
  // The principal burst is lifted here so the daily cap is what a flood of reads meets (burst.test.ts covers the burst).
  await stack.start({ now, metering: { BURST_CAPACITY: "100000", BURST_PER_SECOND: "100000" } });
  await stack.startBoard();
  await stack.publishTwoDays();
  await stack.startPayments();
  await stack.untilServing();
}, 60_000);

afterAll(() => stack.stop());

const postKey = (body: string, contentType = "application/json") =>
  fetch(`${stack.base}/api/key`, { method: "POST", headers: { "content-type": contentType }, body });

async function freeKey(email: string): Promise<string> {
  const res = await postKey(JSON.stringify({ email }));
  expect(res.status).toBe(201);
  return ((await res.json()) as { key: string }).key;
}

const read = (path: string, key: string, init: RequestInit = {}) => fetch(`${stack.base}${path}`, { ...init, headers: { "x-board-key": key, ...init.headers } });

interface TierBody {
  tier: { name: string; used_today: number; limit: number; remaining: number; reset_at: string };
}

async function errorOf(res: Response) {
  return ((await res.json()) as { error: { code: string; message: string; param?: string; retry_after_seconds?: number } }).error;
}

describe("POST /api/key", () => {
  it("refuses a bad body with a 400 that names the problem", async () => {
    const cases: [RequestInit, string, string | undefined][] = [
      [{ headers: { "content-type": "text/plain" }, body: '{"email":"a@b.co"}' }, "application/json", undefined],
      [{ headers: { "content-type": "application/json" }, body: "{not json" }, "not valid JSON", undefined],
      [{ headers: { "content-type": "application/json" }, body: "[]" }, "JSON object", undefined],
      [{ headers: { "content-type": "application/json" }, body: "{}" }, "needs an email", "email"],
      [{ headers: { "content-type": "application/json" }, body: '{"email":"not-an-email"}' }, "not a valid email", "email"],
      [{ headers: { "content-type": "application/json" }, body: JSON.stringify({ email: `${"a".repeat(5000)}@b.co` }) }, "larger than", undefined],
    ];
    for (const [init, says, param] of cases) {
      const res = await fetch(`${stack.base}/api/key`, { method: "POST", ...init });
      expect(res.status, says).toBe(400);
      const error = await errorOf(res);
      expect(error.code).toBe("invalid_request");
      expect(error.message).toContain(says);
      expect(error.param).toBe(param);
    }
  });

  it("issues a key shown once, with its terms; the same email again retires the old key", async () => {
    const res = await postKey(JSON.stringify({ email: "Trader@Example.com" }));
    expect(res.status).toBe(201);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const body = (await res.json()) as { key: string; daily_limit: number; usage: string; header: string; routes: string[]; replaced_previous: boolean };
    expect(body).toMatchObject({ daily_limit: 25, header: "X-Board-Key", replaced_previous: false });
    expect(body.usage.length).toBeGreaterThan(20);
    expect(body.routes).toEqual(
      expect.arrayContaining(["/api/board/regime", "/api/board/indices", "/api/board/movers", "/api/board/crypto", "/api/board/crypto/night", "/api/board/tradfi-risk", "/api/board/hold"]),
    );
    expect(body.routes).not.toContain("/api/board/buylist");
    expect((await read("/api/board/regime", body.key)).status).toBe(200);

    const again = (await (await postKey(JSON.stringify({ email: "trader@example.com " }))).json()) as { key: string; replaced_previous: boolean };
    expect(again.replaced_previous).toBe(true);
    expect(again.key).not.toBe(body.key);
    const old = await read("/api/board/regime", body.key);
    expect(old.status).toBe(403);
    expect((await errorOf(old)).code).toBe("key_unknown");
    expect((await read("/api/board/regime", again.key)).status).toBe(200);
  });

  it("stores neither the email nor the key in the clear", async () => {
    const key = await freeKey("secret-holder@example.com");
    const all = await dumpSchema(stack.db.url, "identity");
    expect(all.length).toBeGreaterThan(0);
    expect(all).not.toContain("secret-holder");
    expect(all).not.toContain(key);
    expect(all).not.toContain(key.slice(4));
  });
});

describe("the free key tier", () => {
  it("counts served reads on the tier's routes, carries the tier block, and leaves free reads and HEAD uncounted", async () => {
    const key = await freeKey("counter@example.com");
    const first = await read("/api/board/regime", key, { headers: { "accept-encoding": "gzip" } });
    expect(first.status).toBe(200);
    expect(first.headers.get("etag")).toBeNull();
    expect(first.headers.get("x-board-tier")).toBe("free_key");
    expect(first.headers.get("ratelimit-remaining")).toBe("24");
    expect(first.headers.get("x-board-market-open")).toBeTruthy();
    const body = (await first.json()) as TierBody & { product: string };
    expect(body.product).toBe("scored-market-board");
    expect(body.tier).toEqual({ name: "free_key", used_today: 1, limit: 25, remaining: 24, reset_at: "2026-11-21T00:00:00.000Z" });

    expect((await read("/api/board/free", key)).status).toBe(200);
    expect((await read("/api/board/indices", key, { method: "HEAD" })).status).toBe(402);
    const second = (await (await read("/api/board/hold?sym=AAPL", key)).json()) as TierBody;
    expect(second.tier.used_today).toBe(2);
  });

  it("answers a route outside the tier with the 402 (the caller can still pay) and counts nothing", async () => {
    const key = await freeKey("outside@example.com");
    const res = await read("/api/board/buylist", key);
    expect(res.status).toBe(402);
    expect(res.headers.get("payment-required")).toBeTruthy();
    const body = (await res.json()) as { error: string; message: string };
    expect(body.error).toBe("route_not_in_tier");
    expect(body.message).toContain("/api/board/buylist");
    const next = (await (await read("/api/board/movers", key)).json()) as TierBody;
    expect(next.tier.used_today).toBe(1);
  });

  it("serves exactly 25 of 100 concurrent reads, then 429 with Retry-After until 00:00 UTC; the next day counts again", async () => {
    const key = await freeKey("flood@example.com");
    const results = await Promise.all(Array.from({ length: 100 }, () => read("/api/board/indices", key)));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(25);
    expect(statuses.filter((s) => s === 429)).toHaveLength(75);
    const used = await Promise.all(results.filter((r) => r.status === 200).map(async (r) => ((await r.json()) as TierBody).tier.used_today));
    expect(new Set(used).size).toBe(25);
    expect(Math.max(...used)).toBe(25);

    const refused = await read("/api/board/indices", key);
    expect(refused.status).toBe(429);
    const secondsToMidnight = Math.ceil((Date.parse("2026-11-21T00:00:00Z") - clock.t) / 1000);
    expect(Number(refused.headers.get("retry-after"))).toBe(secondsToMidnight);
    const error = await errorOf(refused);
    expect(error.code).toBe("daily_cap_reached");
    expect(error.retry_after_seconds).toBe(secondsToMidnight);
    for (const r of results) if (r.status === 429) await r.body?.cancel();

    clock.t = Date.parse("2026-11-21T00:00:01Z");
    try {
      const tomorrow = await read("/api/board/indices", key);
      expect(tomorrow.status).toBe(200);
      expect(((await tomorrow.json()) as TierBody).tier).toMatchObject({ used_today: 1, reset_at: "2026-11-22T00:00:00.000Z" });
    } finally {
      clock.t = Date.parse("2026-11-20T15:00:00Z");
    }
  });

  it("counts per email, not per key: the same email posted again gets a new key and the same day's count (25 across both, the 26th 429)", async () => {
    const first = await freeKey("reissue@example.com");
    for (let i = 1; i <= 15; i++) expect((await read("/api/board/regime", first)).status, `read ${i}`).toBe(200);
    const second = await freeKey("Reissue@Example.com");
    expect(second).not.toBe(first);
    const reads = [];
    for (let i = 16; i <= 25; i++) {
      const res = await read("/api/board/indices", second);
      expect(res.status, `read ${i}`).toBe(200);
      reads.push(((await res.json()) as TierBody).tier.used_today);
    }
    expect(reads).toEqual([16, 17, 18, 19, 20, 21, 22, 23, 24, 25]);
    const refused = await read("/api/board/indices", second);
    expect(refused.status).toBe(429);
    expect((await errorOf(refused)).code).toBe("daily_cap_reached");
    // A third key does not start the day again either.
    const third = await freeKey("reissue@example.com");
    const again = await read("/api/board/movers", third);
    expect(again.status).toBe(429);
    expect(Number(again.headers.get("retry-after"))).toBeGreaterThan(0);
    await again.body?.cancel();
  });

  it("does not count a read the board could not serve", async () => {
    const key = await freeKey("unserved@example.com");
    expect(((await (await read("/api/board/regime", key)).json()) as TierBody).tier.used_today).toBe(1);
    await stack.stopBoard();
    try {
      const failed = await read("/api/board/regime", key);
      expect(failed.status).toBeGreaterThanOrEqual(500);
    } finally {
      await stack.startBoard();
      await stack.untilServing();
    }
    expect(((await (await read("/api/board/regime", key)).json()) as TierBody).tier.used_today).toBe(2);
  });

  it("expires a key unused for 90 days with a 403 that says how to get a new one", async () => {
    const key = await freeKey("idle@example.com");
    expect((await read("/api/board/regime", key)).status).toBe(200);
    clock.t += 89 * DAY;
    try {
      expect((await read("/api/board/regime", key)).status).toBe(200);
      clock.t += 91 * DAY;
      const res = await read("/api/board/regime", key);
      expect(res.status).toBe(403);
      const error = await errorOf(res);
      expect(error.code).toBe("key_expired");
      expect(error.message).toContain("POST /api/key");
    } finally {
      clock.t = Date.parse("2026-11-20T15:00:00Z");
    }
  });

  it("refuses an unknown or malformed key with 403", async () => {
    for (const bad of ["bfk_nope", "x".repeat(400)]) {
      const res = await read("/api/board/regime", bad);
      expect(res.status).toBe(403);
      expect((await errorOf(res)).code).toBe("key_unknown");
    }
  });
});

/** Every row of every table of a schema, as text: what an attacker with the database would see. */
async function dumpSchema(url: string, schema: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const tables = await client.query<{ table_name: string }>("SELECT table_name FROM information_schema.tables WHERE table_schema = $1", [schema]);
    const rows: string[] = [];
    for (const { table_name } of tables.rows) {
      const dump = await client.query<{ row: string }>(`SELECT row_to_json(t)::text AS row FROM "${schema}"."${table_name}" t`);
      rows.push(...dump.rows.map((r) => r.row));
    }
    return rows.join("\n");
  } finally {
    await client.end();
  }
}
