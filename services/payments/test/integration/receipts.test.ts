import { randomBytes } from "node:crypto";
import { busEnv, freshDatabase, testBusOptions, testInfra, type TestDatabase } from "@board/service-kit/testing";
import { paymentsDidDocument, DidDocument } from "@board/proto";
import { request, createLogger } from "@board/service-kit";
import type { PaymentRequirements } from "@x402/core/types";
import {
  extractPublicKeyFromKid,
  verifyOfferSignatureJWS,
  verifyReceiptSignatureJWS,
  type JWSSignedReceipt,
} from "@x402/extensions/offer-receipt";
import { connect, type NatsConnection } from "nats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { receiptKeys as receiptKeysTable } from "../../src/db/schema.js";
import { PaymentsEnv } from "../../src/env.js";
import { OfferReceipts } from "../../src/receipts/offer-receipts.js";
import { ReceiptKeys } from "../../src/receipts/receipt-keys.js";
import { receiptKeyEncryptionKey } from "../../src/receipts/secrets.js";
import { startPayments, type PaymentsService } from "../../src/start.js";

const infra = testInfra();
const secret = randomBytes(32).toString("base64url");
const base = new URL("http://127.0.0.1:8080");
let db: TestDatabase;
let payments: PaymentsService;
let nc: NatsConnection;

const requirement: PaymentRequirements = {
  scheme: "exact",
  network: "eip155:8453",
  asset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
  payTo: "0x209693Bc6afc0C5328bA36FaF03C514EF312287C",
  amount: "5000",
  maxTimeoutSeconds: 120,
  extra: { name: "USD Coin", version: "2" },
};
const commitment = { seq: 7, content_hash: "a".repeat(64), commitment: "b".repeat(64) };

/** Keys on the test database with a clock the test moves. */
function keysAt(clock: { t: number }, opts: { secret?: string } = {}) {
  return new ReceiptKeys({
    db: payments.runtime.database!.db,
    keyEncryptionKey: receiptKeyEncryptionKey(opts.secret ?? secret),
    publicBaseUrl: base,
    now: () => new Date(clock.t),
    rotateAfterSeconds: 90 * 86_400,
    publishLeadSeconds: 900,
    log: createLogger("receipts-test", "warn", "test"),
  });
}

/** The public JWK the DID document lists for a receipt's kid (what a did:web resolver would find). */
async function keyOf(doc: DidDocument, receipt: JWSSignedReceipt) {
  const kid = JSON.parse(Buffer.from(receipt.signature.split(".")[0]!, "base64url").toString()).kid as string;
  const method = doc.verificationMethod.find((m) => m.id === kid);
  if (!method) throw new Error(`${kid} is not in the DID document`);
  return method.publicKeyJwk;
}

/** The same JWS with one byte of its payload changed. */
function tampered(receipt: JWSSignedReceipt): JWSSignedReceipt {
  const [h, p, s] = receipt.signature.split(".") as [string, string, string];
  const payload = Buffer.from(p, "base64url");
  payload[payload.length - 3] = payload[payload.length - 3]! ^ 0x01;
  return { format: "jws", signature: `${h}.${payload.toString("base64url")}.${s}` };
}

beforeAll(async () => {
  db = await freshDatabase(infra.databaseUrl);
  payments = await startPayments(
    PaymentsEnv.parse({ ...busEnv("payments"), DATABASE_URL: db.url, HEALTH_PORT: 0, LOG_LEVEL: "warn", RECEIPT_SECRET: secret, PUBLIC_BASE_URL: base.toString() }),
  );
  nc = await connect(testBusOptions());
});
afterAll(async () => {
  await nc.close();
  await payments.stop();
  await db.drop();
});

describe("receipt keys: payments' own, rotated, published for good", () => {
  it("the service made its first key at start and publishes it as did:web on the bus", async () => {
    const doc = DidDocument.parse(await request(nc, paymentsDidDocument, {}));
    expect(doc.id).toBe("did:web:127.0.0.1%3A8080");
    expect(doc.verificationMethod).toHaveLength(1);
    expect(doc.verificationMethod[0]!.id).toMatch(/^did:web:127\.0\.0\.1%3A8080#[A-Za-z0-9_-]{43}$/);
    expect(doc.assertionMethod).toEqual([doc.verificationMethod[0]!.id]);
    // The private half is stored encrypted, never in the clear.
    const [row] = await payments.runtime.database!.db.select().from(receiptKeysTable);
    expect(row!.privateKeyEnc).not.toMatch(/"d"/);
  });

  it("a receipt verifies with x402's own verifier and names the route, price, transaction and board version; one byte changed does not", async () => {
    const clock = { t: Date.now() };
    const keys = keysAt(clock);
    await keys.start();
    keys.stop();
    const signer = new OfferReceipts(keys, () => clock.t);
    const receipt = await signer.signReceipt({
      resourceUrl: "http://127.0.0.1:8080/api/board/regime",
      network: "base",
      payer: "0x857b06519E91e3A54538791bDbb0E22373e36b66",
      transaction: `0x${"c".repeat(64)}`,
      amount: "5000",
      asset: requirement.asset,
      commitment,
    });
    const jwk = await keyOf(keys.didDocument(), receipt);
    const payload = (await verifyReceiptSignatureJWS(receipt, jwk)) as unknown as Record<string, unknown>;
    expect(payload).toEqual({
      version: 1,
      network: "eip155:8453",
      resourceUrl: "http://127.0.0.1:8080/api/board/regime",
      payer: "0x857b06519E91e3A54538791bDbb0E22373e36b66",
      issuedAt: Math.floor(clock.t / 1000),
      transaction: `0x${"c".repeat(64)}`,
      amount: "5000",
      asset: requirement.asset,
      contentHash: commitment.content_hash,
      commitment: commitment.commitment,
      proofSeq: 7,
      settlement: "final",
    });
    await expect(verifyReceiptSignatureJWS(tampered(receipt), jwk)).rejects.toThrow();
  });

  it("offers: one per accepts entry, verifiable, kept until half their validity is gone", async () => {
    const clock = { t: Date.now() };
    const keys = keysAt(clock);
    await keys.start();
    keys.stop();
    const signer = new OfferReceipts(keys, () => clock.t);
    const url = "http://127.0.0.1:8080/api/board/regime";
    const [offer] = await signer.signOffers(url, [requirement]);
    const payload = await verifyOfferSignatureJWS(offer!, (await extractPublicKeyFromKidOf(keys, offer!.signature)) as never);
    expect(payload).toMatchObject({ resourceUrl: url, scheme: "exact", network: "eip155:8453", asset: requirement.asset, payTo: requirement.payTo, amount: "5000" });
    expect(Math.abs(payload.validUntil - (Math.floor(clock.t / 1000) + 120))).toBeLessThanOrEqual(1);
    clock.t += 59_000;
    expect((await signer.signOffers(url, [requirement]))[0]).toBe(offer);
    clock.t += 2_000;
    const [renewed] = await signer.signOffers(url, [requirement]);
    expect(renewed).not.toBe(offer);
    await verifyOfferSignatureJWS(renewed!, (await extractPublicKeyFromKidOf(keys, renewed!.signature)) as never);
  });

  it("rotation: the successor is published first and signs after the lead; the old key stays published, its private half erased", async () => {
    const clock = { t: Date.now() };
    const keys = keysAt(clock);
    await keys.start();
    keys.stop();
    const signer = new OfferReceipts(keys, () => clock.t);
    const facts = { resourceUrl: "http://127.0.0.1:8080/api/board/agent", network: "eip155:8453", payer: "0xabc", transaction: "0x01", amount: "25000", commitment };
    const before = await signer.signReceipt(facts);
    const rotation = await keys.rotate();
    expect(keys.didDocument().verificationMethod.map((m) => m.id)).toContain(rotation.kid);
    // Until the successor signs, the old key does.
    expect(kidOf(await signer.signReceipt(facts))).toBe(kidOf(before));
    clock.t = rotation.signsFrom.getTime() + 1000;
    await keys.refresh();
    const after = await signer.signReceipt(facts);
    expect(kidOf(after)).toBe(rotation.kid);
    const doc = keys.didDocument();
    // Both verify against the published document: the old receipt long after its key stopped signing.
    await verifyReceiptSignatureJWS(before, await keyOf(doc, before));
    await verifyReceiptSignatureJWS(after, await keyOf(doc, after));
    const rows = await payments.runtime.database!.db.select().from(receiptKeysTable);
    const old = rows.find((r) => doc.verificationMethod.some((m) => m.id === `${keys.did}#${r.kid}`) && `${keys.did}#${r.kid}` === kidOf(before));
    expect(old?.privateKeyEnc).toBeNull();
  });

  it("another secret cannot open the stored keys: signing fails with a clear message, nothing is signed", async () => {
    const clock = { t: Date.now() + 10 * 86_400_000 };
    const keys = keysAt(clock, { secret: randomBytes(32).toString("base64url") });
    await keys.start();
    keys.stop();
    await expect(new OfferReceipts(keys, () => clock.t).signReceipt({ resourceUrl: "x", network: "eip155:8453", payer: "p", transaction: "t", amount: "1" })).rejects.toThrow(
      /does not decrypt/,
    );
  });
});

const kidOf = (receipt: JWSSignedReceipt) => JSON.parse(Buffer.from(receipt.signature.split(".")[0]!, "base64url").toString()).kid as string;

/** The offer's key from the DID document, imported as x402's resolver would (extractPublicKeyFromKid handles did:jwk and did:key; did:web needs the document). */
async function extractPublicKeyFromKidOf(keys: ReceiptKeys, jws: string) {
  const kid = JSON.parse(Buffer.from(jws.split(".")[0]!, "base64url").toString()).kid as string;
  const method = keys.didDocument().verificationMethod.find((m) => m.id === kid);
  if (!method) throw new Error("offer key not published");
  // The same import x402 applies to a did:jwk: the published JWK as a did:jwk identifier.
  return extractPublicKeyFromKid(`did:jwk:${Buffer.from(JSON.stringify(method.publicKeyJwk)).toString("base64url")}`);
}
