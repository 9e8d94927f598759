import { busEnv, freshDatabase, testInfra, type TestDatabase } from "@board/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PaymentsEnv } from "../../src/env.js";
import { startPayments, type PaymentsService } from "../../src/start.js";

const infra = testInfra();
let db: TestDatabase;
let payments: PaymentsService;
let n = 0;
const claim = (key: string) => ({
  paymentKey: key,
  rail: "base",
  network: "eip155:8453",
  route: "/api/board/regime",
  amount: 5000n,
  payer: "0xpayer",
  payment: { n: n++ },
});

beforeAll(async () => {
  db = await freshDatabase(infra.databaseUrl);
  payments = await startPayments(PaymentsEnv.parse({ ...busEnv("payments"), DATABASE_URL: db.url, HEALTH_PORT: 0, LOG_LEVEL: "warn" }));
});
afterAll(async () => {
  await payments.stop();
  await db.drop();
});

describe("claims: a payment is single use", () => {
  it("of 20 concurrent identical payments exactly one is claimed, repeatedly", async () => {
    for (let round = 0; round < 10; round++) {
      const outcomes = await Promise.all(Array.from({ length: 20 }, () => payments.claims.claim(claim(`evm:0xpayer:nonce-${round}`))));
      expect(outcomes.filter((o) => o.ok)).toHaveLength(1);
      expect(outcomes.filter((o) => !o.ok && o.reason === "payment_already_used")).toHaveLength(19);
    }
  });

  it("a settled payment can never be claimed again; a released one can", async () => {
    const first = await payments.claims.claim(claim("evm:0xpayer:settle"));
    if (!first.ok) throw new Error("claim refused");
    expect(await payments.claims.settled(first.id, "0xtx", { ok: true })).toBe(true);
    expect(await payments.claims.settled(first.id, "0xtx", { ok: true })).toBe(false); // never settled twice
    expect(await payments.claims.claim(claim("evm:0xpayer:settle"))).toEqual({ ok: false, reason: "payment_already_used" });

    const second = await payments.claims.claim(claim("evm:0xpayer:release"));
    if (!second.ok) throw new Error("claim refused");
    expect(await payments.claims.release(second.id, "board read failed")).toBe(true);
    expect(await payments.claims.release(second.id, "again")).toBe(false);
    const again = await payments.claims.claim(claim("evm:0xpayer:release"));
    expect(again.ok).toBe(true);
    const stats = await payments.claims.settlementStats();
    expect(stats.settlements).toBe(1);
    expect(stats.lastSettledAt).toBeInstanceOf(Date);
  });

  it("a claim refusing owing payers reads the payer's debt in its own statement: refused with what is owed and nothing held; the same payment claims once the debt is cleared; other payers and claims not refusing are untouched", async () => {
    const owing = "0x00000000000000000000000000000000000000Ab";
    const asked = { ...claim("evm:owing:1"), payer: owing, refuseOwing: true };
    // Recorded lowercased, as every EVM payer is in the exposure ledger; claimed checksummed.
    expect(await payments.exposure.lost({ network: "eip155:8453", payer: owing.toLowerCase() }, 5000n, "00000000-0000-4000-8000-00000000a001", "payment_settlement_failed: spent", false)).toBe(true);
    expect(await payments.claims.claim(asked)).toEqual({ ok: false, reason: "payment_payer_in_arrears", owed: 5000n });
    expect(await payments.claims.byKey("evm:owing:1")).toBeNull();
    // Another network's debt is another's: the same payer on another network claims.
    expect((await payments.claims.claim({ ...asked, paymentKey: "evm:owing:2", network: "eip155:84532" })).ok).toBe(true);
    // A claim that does not refuse owing payers (a rail that never answers early) claims.
    expect((await payments.claims.claim({ ...asked, paymentKey: "evm:owing:3", refuseOwing: false })).ok).toBe(true);
    expect(await payments.exposure.clear(owing, "paid by transfer")).toBe(1);
    const cleared = await payments.claims.claim(asked);
    if (!cleared.ok) throw new Error("claim refused");
    const row = await payments.claims.get(cleared.id);
    expect(row).toMatchObject({ paymentKey: "evm:owing:1", payer: owing, network: "eip155:8453", amount: "5000", state: "claimed", payment: asked.payment });
    // Held now: claimed again it is refused as used, not as owing.
    expect(await payments.claims.claim(asked)).toEqual({ ok: false, reason: "payment_already_used" });
  });

  it("claims settled in the same turn are written together, each with its own transaction and receipt, each exactly once", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const c = await payments.claims.claim(claim(`evm:0xpayer:together-${i}`));
      if (!c.ok) throw new Error("claim refused");
      ids.push(c.id);
    }
    const [closed, twice, ...rest] = ids as [string, string, ...string[]];
    expect(await payments.claims.release(closed, "board read failed")).toBe(true);
    const writes = await Promise.all([
      payments.claims.settled(closed, "0xclosed", { n: "closed" }),
      payments.claims.settled(twice, "0xfirst", { n: "first" }),
      payments.claims.settled(twice, "0xsecond", { n: "second" }),
      ...rest.map((id, i) => payments.claims.settled(id, `0xtx${i}`, { n: i, nested: { ok: true, quote: 'a "b" \\ c' } })),
    ]);
    // The released claim stays released; the claim written twice is settled once; the others each once.
    expect(writes[0]).toBe(false);
    expect(writes.slice(1, 3).filter(Boolean)).toHaveLength(1);
    expect(writes.slice(3)).toEqual(rest.map(() => true));
    expect((await payments.claims.get(closed))?.state).toBe("released");
    const both = await payments.claims.get(twice);
    expect(both?.state).toBe("settled");
    expect([{ transaction: "0xfirst", receipt: { n: "first" } }, { transaction: "0xsecond", receipt: { n: "second" } }]).toContainEqual({ transaction: both?.transaction, receipt: both?.receipt });
    for (const [i, id] of rest.entries()) {
      const row = await payments.claims.get(id);
      expect(row).toMatchObject({ state: "settled", transaction: `0xtx${i}`, receipt: { n: i, nested: { ok: true, quote: 'a "b" \\ c' } } });
      expect(row?.settledAt).toBeInstanceOf(Date);
    }
  });

  it("a failed settlement is not served and stays for reconciliation, not reusable", async () => {
    const c = await payments.claims.claim(claim("evm:0xpayer:fail"));
    if (!c.ok) throw new Error("claim refused");
    expect(await payments.claims.failed(c.id, "not confirmed")).toBe(true);
    expect(await payments.claims.settled(c.id, "0xtx", {})).toBe(false);
    expect((await payments.claims.claim(claim("evm:0xpayer:fail"))).ok).toBe(false);
    expect((await payments.claims.get(c.id))?.state).toBe("failed");
  });
});
