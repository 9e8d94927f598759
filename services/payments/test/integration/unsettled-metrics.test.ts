import { busEnv, freshDatabase, testInfra, type TestDatabase } from "@board/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PaymentsEnv } from "../../src/env.js";
import { startPayments, type PaymentsService } from "../../src/start.js";

const infra = testInfra();
let db: TestDatabase;
let payments: PaymentsService;

beforeAll(async () => {
  db = await freshDatabase(infra.databaseUrl);
  payments = await startPayments(PaymentsEnv.parse({ ...busEnv("payments"), DATABASE_URL: db.url, HEALTH_PORT: 0, LOG_LEVEL: "warn" }));
});
afterAll(async () => {
  await payments.stop();
  await db.drop();
});

const claim = (key: string) => ({ paymentKey: key, rail: "base", network: "eip155:8453", route: "/api/board/regime", amount: 5000n, payer: "0xpayer", payment: { key } });

describe("what is left unsettled, on /metrics", () => {
  it("counts open claims and pending settlements over the claims table, with when the oldest of each began", async () => {
    const before = Date.now() / 1000;
    const open = await payments.claims.claim(claim("evm:0xpayer:open"));
    const pending = await payments.claims.claim(claim("evm:0xpayer:pending"));
    const final = await payments.claims.claim(claim("evm:0xpayer:final"));
    if (!open.ok || !pending.ok || !final.ok) throw new Error("claim refused");
    expect(await payments.claims.settled(pending.id, "0xpending", { ok: true }, "pending")).toBe(true);
    expect(await payments.claims.settled(final.id, "0xfinal", { ok: true })).toBe(true);

    const text = await payments.runtime.metrics.registry.metrics();
    expect(text).toContain('payments_unsettled_claims{stage="claimed",service="payments"} 1\n');
    expect(text).toContain('payments_unsettled_claims{stage="pending",service="payments"} 1\n');
    for (const stage of ["claimed", "pending"]) {
      const at = Number(new RegExp(`payments_oldest_unsettled_claim_timestamp_seconds\\{stage="${stage}",service="payments"\\} (\\S+)`).exec(text)?.[1]);
      expect(at).toBeGreaterThanOrEqual(before - 5);
      expect(at).toBeLessThanOrEqual(Date.now() / 1000 + 5);
    }
    // No rail configured here: the mode is said, no rail is.
    expect(text).toContain('payments_mode{mode="production",service="payments"} 1\n');
    expect(text).not.toContain("payments_rail_up{");
  });
});
