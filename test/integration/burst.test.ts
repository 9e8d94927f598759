import { DEFAULT_BURST } from "@board/proto";
import { afterAll, beforeAll, expect, it } from "vitest";
import { Stack } from "./harness.js";

/** This stack keeps metering's default burst limits, so what a flood meets is the documented threshold. */
const stack = new Stack();

beforeAll(async () => {
  await stack.start({ metering: { ANON_BURST_CAPACITY: String(DEFAULT_BURST.anonymous.capacity), ANON_BURST_PER_SECOND: String(DEFAULT_BURST.anonymous.per_second) } });
  await stack.startBoard();
  await stack.publishTwoDays();
  await stack.startPayments();
  await stack.untilServing();
  // untilServing's polls spent some of this address's bucket: let it fill again.
  await new Promise((r) => setTimeout(r, 2500));
}, 60_000);

afterAll(() => stack.stop());

async function flood(n: number, path: string, headers: Record<string, string> = {}) {
  const results = await Promise.all(Array.from({ length: n }, () => fetch(`${stack.base}${path}`, { headers })));
  const limited = results.filter((r) => r.status === 429);
  for (const r of results) if (r.status !== 429) await r.body?.cancel();
  return { results, limited };
}

it("limits a burst of anonymous reads per client address with 429, Retry-After and the burst_limited code", async () => {
  const { capacity, per_second } = DEFAULT_BURST.anonymous;
  const { results, limited } = await flood(capacity * 2, "/api/board/free");
  const served = results.filter((r) => r.status === 200).length;
  expect(served).toBeGreaterThanOrEqual(capacity);
  expect(served).toBeLessThan(capacity + per_second);
  expect(limited.length).toBeGreaterThan(0);
  const first = limited[0]!;
  expect(Number(first.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
  const body = (await first.json()) as { error: { code: string; retry_after_seconds: number } };
  expect(body.error.code).toBe("burst_limited");
  for (const r of limited.slice(1)) await r.body?.cancel();
  // The bucket refills: after the wait a read passes again.
  await new Promise((r) => setTimeout(r, 1000 * body.error.retry_after_seconds + 100));
  expect((await fetch(`${stack.base}/api/board/free`)).status).toBe(200);
});

it("limits a burst per principal; a burst-limited read spends none of the daily count", async () => {
  const res = await fetch(`${stack.base}/api/key`, { method: "POST", headers: { "content-type": "application/json" }, body: '{"email":"burst@example.com"}' });
  const { key } = (await res.json()) as { key: string };
  const { capacity, per_second } = DEFAULT_BURST.principal;
  const { results, limited } = await flood(capacity + 10, "/api/board/regime", { "x-board-key": key });
  const served = results.filter((r) => r.status === 200).length;
  expect(served).toBeGreaterThanOrEqual(capacity);
  expect(served).toBeLessThan(capacity + per_second);
  expect(limited.length).toBeGreaterThan(0);
  for (const r of limited) expect(((await r.json()) as { error: { code: string } }).error.code).toBe("burst_limited");
  await new Promise((r) => setTimeout(r, 1200));
  const next = (await (await fetch(`${stack.base}/api/board/regime`, { headers: { "x-board-key": key } })).json()) as { tier: { used_today: number } };
  expect(next.tier.used_today).toBe(served + 1);
});
