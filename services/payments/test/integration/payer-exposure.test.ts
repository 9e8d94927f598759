import { busEnv, freshDatabase, testInfra, type TestDatabase } from "@board/service-kit/testing";
import { createLogger, openDatabase } from "@board/service-kit";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as schema from "../../src/db/schema.js";
import { PaymentsEnv } from "../../src/env.js";
import { PayerExposure } from "../../src/settlement/payer-exposure.js";
import { startPayments, type PaymentsService } from "../../src/start.js";

/**
 * The cap per payer holds across replicas: every reservation is decided on its payer's row in one statement, so
 * two ledgers on two connections pools (as two payments replicas) never let a payer past it.
 */
const infra = testInfra();
const CAP = 50_000n;
const PRICE = 5_000n;
let db: TestDatabase;
let payments: PaymentsService;
let replicas: { ledger: PayerExposure; close(): Promise<void> }[];
const base = (payer: string) => ({ network: "eip155:8453", payer });
let n = 0;
const newPayer = () => `0x${(++n).toString(16).padStart(40, "0")}`;
const uuid = (i: number) => `00000000-0000-4000-8000-${i.toString(16).padStart(12, "0")}`;

beforeAll(async () => {
  db = await freshDatabase(infra.databaseUrl);
  // Migrations by the service itself; then two more ledgers, each on its own pool.
  payments = await startPayments(PaymentsEnv.parse({ ...busEnv("payments"), DATABASE_URL: db.url, HEALTH_PORT: 0, LOG_LEVEL: "warn" }));
  replicas = await Promise.all(
    [0, 1].map(async () => {
      const open = await openDatabase({
        service: "payments",
        url: db.url,
        dataDir: "",
        schema,
        migrationsFolder: fileURLToPath(new URL("../../drizzle", import.meta.url)),
        log: createLogger("payments", "warn", "test"),
      });
      return { ledger: new PayerExposure(open.db, CAP), close: () => open.close() };
    }),
  );
});
afterAll(async () => {
  await Promise.all(replicas.map((r) => r.close()));
  await payments.stop();
  await db.drop();
});

describe("the payer-exposure ledger", () => {
  it("of 40 concurrent reservations through two replicas exactly the cap's worth succeed; released ones make room again", async () => {
    const payer = newPayer();
    const outcomes = await Promise.all(Array.from({ length: 40 }, (_, i) => replicas[i % 2]!.ledger.reserve(base(payer), PRICE)));
    expect(outcomes.filter(Boolean)).toHaveLength(Number(CAP / PRICE));
    expect(await replicas[0]!.ledger.reserve(base(payer), PRICE)).toBe(false);
    await replicas[1]!.ledger.releaseMany([{ ...base(payer), amount: PRICE }, { ...base(payer), amount: PRICE }]);
    expect(await replicas[0]!.ledger.reserve(base(payer), 2n * PRICE)).toBe(true);
    expect(await replicas[0]!.ledger.reserve(base(payer), PRICE)).toBe(false);
    // Another payer, and the same payer on another network, have caps of their own.
    expect(await replicas[1]!.ledger.reserve(base(newPayer()), CAP)).toBe(true);
    expect(await replicas[1]!.ledger.reserve({ network: "eip155:1", payer }, PRICE)).toBe(true);
    // A price above the cap is never reserved.
    expect(await replicas[1]!.ledger.reserve(base(newPayer()), CAP + 1n)).toBe(false);
  });

  it("reservations asked together (a batch's, in one statement) each hold their payer's cap: three payers asking more than the cap's worth get exactly the cap; one owing gets none; a refused statement makes none", async () => {
    const [a, b] = replicas.map((r) => r.ledger) as [PayerExposure, PayerExposure];
    const payers = [newPayer(), newPayer(), newPayer()];
    const owing = newPayer();
    expect(await a.lost(base(owing), PRICE, uuid(100), "payment_settlement_failed: spent", false)).toBe(true);
    const perPayer = Number(CAP / PRICE) + 3;
    // Interleaved, as a batch of many payers asks: payer 0, 1, 2, owing, payer 0, ...; the second replica asks beside it.
    const asked = Array.from({ length: perPayer }, () => [...payers, owing]).flat();
    const outcomes = await Promise.all([...asked.map((p) => a.reserve(base(p), PRICE)), ...payers.map((p) => b.reserve(base(p), PRICE))]);
    const byPayer = (p: string) => outcomes.filter((ok, i) => ok && (i < asked.length ? asked[i] : payers[i - asked.length]) === p).length;
    for (const p of payers) expect(byPayer(p)).toBe(Number(CAP / PRICE));
    expect(byPayer(owing)).toBe(0);
    // A payer checksummed one way and lowercased the other, in the same turn: one row, one cap.
    const mixed = newPayer().replace(/[a-f]/g, (c) => c.toUpperCase());
    const both = await Promise.all([a.reserve(base(mixed), CAP), a.reserve(base(mixed.toLowerCase()), PRICE)]);
    expect(both).toEqual([true, false]);
    // A statement the database refuses (a null network) fails every reservation in it (each
    // read then waits for its block: EarlyAnswers.allow) and makes none of them.
    const fine = newPayer();
    const broken = await Promise.allSettled([a.reserve(base(fine), PRICE), a.reserve({ network: null as unknown as string, payer: newPayer() }, PRICE)]);
    expect(broken.map((r) => r.status)).toEqual(["rejected", "rejected"]);
    expect(await a.reserve(base(fine), CAP)).toBe(true);
  });

  it("a loss is recorded once per claim, turns its reservation into a debt, and refuses further reservations until cleared", async () => {
    const payer = newPayer();
    const [a, b] = replicas.map((r) => r.ledger) as [PayerExposure, PayerExposure];
    expect(await a.reserve(base(payer), PRICE)).toBe(true);
    expect(await a.reserve(base(payer), PRICE)).toBe(true);
    // Both replicas report the same claim's failure: one records it.
    const recorded = await Promise.all([a.lost(base(payer), PRICE, uuid(1), "payment_settlement_failed: spent", true), b.lost(base(payer), PRICE, uuid(1), "payment_settlement_failed: spent", true)]);
    expect(recorded.filter(Boolean)).toHaveLength(1);
    expect(await a.owed(base(payer))).toBe(PRICE);
    expect(await b.reserve(base(payer), PRICE)).toBe(false);
    // Checksummed or not, the same payer.
    expect(await b.owed(base(payer.toUpperCase().replace("0X", "0x")))).toBe(PRICE);
    const before = await a.stats();
    expect(before.payersOwing).toBeGreaterThanOrEqual(1);
    expect(await b.clear(payer, "paid by transfer")).toBe(1);
    expect(await a.owed(base(payer))).toBe(0n);
    // The other reservation is still held: it ends with its own settlement.
    expect((await a.stats()).unsettled).toBeGreaterThanOrEqual(PRICE);
    expect(await b.clear(payer, "again")).toBe(0);
  });

  it("a loss recorded while a clear runs stays owed", async () => {
    const payer = newPayer();
    const [a, b] = replicas.map((r) => r.ledger) as [PayerExposure, PayerExposure];
    await a.lost(base(payer), PRICE, uuid(2), "first", false);
    const [cleared] = await Promise.all([a.clear(payer, "paid"), b.lost(base(payer), PRICE, uuid(3), "second", false)]);
    const owed = await a.owed(base(payer));
    // Whichever came first, what is owed is exactly the losses not cleared.
    expect(owed).toBe(BigInt(2 - cleared) * PRICE);
    const list = await a.arrears({ payers: 100, losses: 10 });
    const mine = list.payers.find((p) => p.payer === payer);
    expect(mine?.losses.length ?? 0).toBe(2 - cleared);
  });
});
