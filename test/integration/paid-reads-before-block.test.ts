import { decodePaymentRequiredHeader, decodePaymentResponseHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import { authorizationTypes } from "@x402/evm";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { x402Client } from "@x402/fetch";
import { appendPaymentIdentifierToExtensions, generatePaymentId, PAYMENT_IDENTIFIER } from "@x402/extensions/payment-identifier";
import { compactVerify, importJWK, type JWK } from "jose";
import { eip3009TokenAbi, startEvmChain, type EvmChain } from "@board/test-chains/evm";
import { DidDocument, ReceiptReply } from "@board/proto";
import { BoardClient, createPayer } from "@board/client";
import { sql } from "drizzle-orm";
import { createPublicClient, createWalletClient, http, type Address, type Hex, type PublicClient } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { Mppx } from "mppx/client";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { usdcClientMethod } from "../../services/payments/test/support/mpp-usdc-client.js";
import { executeElsewhere, refusal, Stack, until } from "./harness.js";

/**
 * Paid reads answered before their block (Base): what the buyer is told, the cap per payer,
 * and each way a transfer can fail after its read was served, with what it cost counted.
 * The chain does not mine on its own here: each test mines when it wants its block.
 */
const stack = new Stack();
let chain: EvmChain;
let rpc: PublicClient;
const payTo = privateKeyToAccount(generatePrivateKey()).address;
const PRICE = 5_000n;
/** The default cap per payer: ten 0.005 reads. */
const CAP = 50_000n;
const PATH = "/api/board/regime";

let paymentsEnv: Record<string, string>;

const rpcCall = (method: string, params: unknown[] = []) => rpc.request({ method: method as never, params: params as never });
const mine = () => rpcCall("evm_mine");

beforeAll(async () => {
  chain = await startEvmChain({ accounts: 4 });
  rpc = createPublicClient({ chain: chain.chain, transport: http(chain.rpcUrl) });
  await stack.start();
  await stack.startBoard();
  await stack.publishTwoDays();
  paymentsEnv = {
    PAY_TO_BASE: payTo,
    BASE_RPC_URL: chain.rpcUrl,
    BASE_FACILITATOR_KEY: chain.accounts[0] as Hex,
    PUBLIC_BASE_URL: "http://127.0.0.1:8080",
    // Generated per run: never a committed secret. MPP waits for its block, but refuses a payer in arrears too.
    MPP_SECRET_KEY: Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64"),
    // Short, so that a dropped transaction is found unknown and reconciled within the test.
    SETTLEMENT_RECEIPT_TIMEOUT_MS: "1500",
    RECONCILE_AFTER_SECONDS: "1",
  };
  await stack.startPayments(paymentsEnv);
  await stack.untilServing();
}, 60_000);
afterAll(async () => {
  await rpcCall("evm_setAutomine", [true]).catch(() => undefined);
  await stack.stop();
  await chain?.stop();
});
// Each test starts on a chain that mines only when told (set-up such as minting is done before).
beforeEach(async () => {
  await rpcCall("evm_setAutomine", [true]);
});

async function payer(usdc: bigint) {
  const key = generatePrivateKey();
  const account = privateKeyToAccount(key);
  if (usdc > 0n) await chain.mint(account.address, usdc);
  // Gas of its own, for the tests where the payer moves its balance itself.
  await rpcCall("hardhat_setBalance", [account.address, "0x56bc75e2d63100000"]);
  return { key, account };
}

/** A payment for PATH signed by @x402/evm's own client; with `paymentId`, carrying it by x402's payment-identifier helper. */
async function signedPayment(key: Hex, paymentId?: string): Promise<string> {
  const res = await fetch(`${stack.base}${PATH}`);
  const required = decodePaymentRequiredHeader(res.headers.get("payment-required")!);
  required.accepts = required.accepts.filter((a) => a.network === "eip155:8453").slice(0, 1);
  const client = x402Client.fromConfig({ schemes: [] }).register("eip155:*", new ExactEvmScheme(privateKeyToAccount(key)));
  if (paymentId)
    client.registerExtension({
      key: PAYMENT_IDENTIFIER,
      enrichPaymentPayload: async (payload, req) => ({ ...payload, extensions: appendPaymentIdentifierToExtensions({ ...(req.extensions ?? {}), ...(payload.extensions ?? {}) }, paymentId) }),
    });
  return encodePaymentSignatureHeader(await client.createPaymentPayload(required));
}

/** A signed receipt's payload, its signature checked with jose against the key /.well-known/did.json lists under its kid. */
async function verifiedReceipt(jws: string): Promise<Record<string, unknown>> {
  const did = DidDocument.parse(await (await fetch(`${stack.base}/.well-known/did.json`)).json());
  const { kid } = JSON.parse(Buffer.from(jws.split(".")[0]!, "base64url").toString()) as { kid: string };
  const method = did.verificationMethod.find((m) => m.id === kid);
  if (!method) throw new Error(`no key ${kid} in the DID document`);
  const { payload } = await compactVerify(jws, await importJWK(method.publicKeyJwk as JWK, "ES256"));
  return JSON.parse(Buffer.from(payload).toString()) as Record<string, unknown>;
}

const askReceipt = (how: { payment: string } | { query: string }) =>
  fetch(`${stack.base}/api/receipt${"query" in how ? `?${how.query}` : ""}`, "payment" in how ? { headers: { "payment-signature": how.payment } } : {});

/** PAYMENT-RESPONSE and the payload of its signed receipt (a JWS: its payload is read, its signature is checked elsewhere). */
function receiptOf(res: Response) {
  const response = decodePaymentResponseHeader(res.headers.get("payment-response")!) as ReturnType<typeof decodePaymentResponseHeader> & { settlement?: string };
  const jws = (response.extensions?.["offer-receipt"] as { info: { receipt: { signature: string } } } | undefined)?.info.receipt.signature;
  const signed = jws ? (JSON.parse(Buffer.from(jws.split(".")[1]!, "base64url").toString()) as { settlement?: string; transaction: string }) : null;
  return { response, signed };
}

async function rows<T>(query: ReturnType<typeof sql>): Promise<T[]> {
  return ((await stack.payments!.runtime.database!.db.execute(query)) as unknown as { rows: T[] }).rows;
}
const settlementOf = async (transaction: string) => rows<{ settlement: string; n: number }>(sql`select settlement::text, count(*)::int as n from payments.claims where transaction = ${transaction} group by 1`);
const exposureOf = async (address: string) =>
  (await rows<{ unsettled: string; owed: string }>(sql`select unsettled::text, owed::text from payments.payer_exposure where payer = ${address.toLowerCase()}`))[0] ?? { unsettled: "0", owed: "0" };
const lossesOf = async (address: string) => rows<{ amount: string; reason: string }>(sql`select amount::text, reason from payments.losses where payer = ${address.toLowerCase()} and cleared_at is null`);
async function metric(name: string): Promise<number> {
  const text = await stack.payments!.runtime.metrics.registry.metrics();
  return text
    .split("\n")
    .filter((l) => l.startsWith(name))
    .reduce((sum, l) => sum + Number(l.split(" ").pop()), 0);
}

describe("paid reads answered before their block", () => {
  it("answers at once while its transfer waits for the block; PAYMENT-RESPONSE and the signed receipt say pending; after the block the same payment is delivered with the final receipt", async () => {
    const { key } = await payer(100_000n);
    const payment = await signedPayment(key);
    const before = await chain.balanceOf(payTo);
    await rpcCall("evm_setAutomine", [false]);
    const started = performance.now();
    const first = await stack.paidGet(PATH, payment);
    const took = performance.now() - started;
    expect(first.status).toBe(200);
    const pending = receiptOf(first);
    expect(pending.response).toMatchObject({ success: true, network: "eip155:8453", settlement: "pending" });
    expect(pending.signed).toMatchObject({ settlement: "pending", transaction: pending.response.transaction });
    // Not mined: nothing has moved yet, and the read did not wait for a block.
    expect(await chain.balanceOf(payTo)).toBe(before);
    expect(took).toBeLessThan(5_000);
    await mine();
    // Final two blocks deep (SETTLEMENT_FINAL_CONFIRMATIONS): its block alone leaves it pending.
    await new Promise((r) => setTimeout(r, 500));
    expect((await settlementOf(pending.response.transaction))[0]?.settlement).toBe("pending");
    await mine();
    await until(async () => (await settlementOf(pending.response.transaction))[0]?.settlement === "final");
    expect(await chain.balanceOf(payTo)).toBe(before + PRICE);
    const again = await stack.paidGet(PATH, payment);
    expect(again.status).toBe(200);
    expect(again.headers.get("payment-redelivery")).toBe("1");
    const final = receiptOf(again);
    expect(final.response).toMatchObject({ success: true, settlement: "final", transaction: pending.response.transaction });
    expect(final.signed).toMatchObject({ settlement: "final", transaction: pending.response.transaction });
  });

  it("caps what a payer is served unsettled: ten 0.005 reads answer before the block, the eleventh waits for it", async () => {
    // Reconciliation (every second in this file, for the dropped transactions) would end a read
    // given up on (its receipt's 1.5 s wait passed before the test mines) final a block deep and
    // release its reservation mid-test: off until the ten are two blocks deep.
    await stack.stopPayments();
    await stack.startPayments({ ...paymentsEnv, RECONCILE_AFTER_SECONDS: "3600" });
    const { key, account } = await payer(1_000_000n);
    const payments: string[] = [];
    for (let i = 0; i < 11; i++) payments.push(await signedPayment(key));
    await rpcCall("evm_setAutomine", [false]);
    for (const payment of payments.slice(0, 10)) {
      const res = await stack.paidGet(PATH, payment);
      expect(res.status).toBe(200);
      expect(receiptOf(res).response).toMatchObject({ settlement: "pending" });
    }
    expect(await exposureOf(account.address)).toEqual({ unsettled: CAP.toString(), owed: "0" });
    let answered: Response | null = null;
    const eleventh = stack.paidGet(PATH, payments[10]!).then((r) => (answered = r));
    await new Promise((r) => setTimeout(r, 700));
    expect(answered).toBeNull();
    await mine();
    const res = await eleventh;
    expect(res.status).toBe(200);
    expect(receiptOf(res).response).toMatchObject({ settlement: "final" });
    // The ten answered early end one block deeper (SETTLEMENT_FINAL_CONFIRMATIONS), and their reservations with them.
    expect((await exposureOf(account.address)).unsettled).toBe(CAP.toString());
    await mine();
    // Reconciliation back on: a replica starts with a pass, which ends any read given up on (now two blocks deep).
    await stack.stopPayments();
    await stack.startPayments(paymentsEnv);
    await until(async () => (await exposureOf(account.address)).unsettled === "0");
  });

  it("a payer that spends its balance before the block: every read served unpaid is recorded as lost, never more than the cap; its next payment is refused until an operator clears it", async () => {
    const { key, account } = await payer(CAP);
    const payments: string[] = [];
    for (let i = 0; i < 10; i++) payments.push(await signedPayment(key));
    const before = await chain.balanceOf(payTo);
    const lossesBefore = await metric("payments_losses_total");
    await rpcCall("evm_setAutomine", [false]);
    for (const payment of payments) expect((await stack.paidGet(PATH, payment)).status).toBe(200);
    // The payer moves its whole balance away, paying a higher tip: mined before the settlements.
    const wallet = createWalletClient({ account, chain: chain.chain, transport: http(chain.rpcUrl) });
    await wallet.writeContract({
      address: chain.usdc,
      abi: eip3009TokenAbi,
      functionName: "transfer",
      args: [privateKeyToAccount(generatePrivateKey()).address, CAP],
      gas: 100_000n,
      maxPriorityFeePerGas: 50_000_000_000n,
      maxFeePerGas: 100_000_000_000n,
    });
    await mine();
    await until(async () => (await lossesOf(account.address)).length === 10);
    const lost = (await lossesOf(account.address)).reduce((sum, l) => sum + BigInt(l.amount), 0n);
    expect(lost).toBe(CAP);
    expect(await exposureOf(account.address)).toEqual({ unsettled: "0", owed: CAP.toString() });
    expect(await chain.balanceOf(payTo)).toBe(before);
    expect(await metric("payments_losses_total")).toBe(lossesBefore + 10);
    // Status says it too (payments.v1.status, as the board's status view shows it).
    type Status = { payments: { exposure?: { losses: number; payers_owing: number } } | null };
    await until(async () => {
      const s = (await (await fetch(`${stack.base}/api/board/status`)).json()) as Status;
      return (s.payments?.exposure?.payers_owing ?? 0) >= 1 && (s.payments?.exposure?.losses ?? 0) >= 10;
    });

    // What reconciliation sent again while these were pending (a read's receipt wait, 1.5 s here, can
    // pass before the test mines on a slow machine) is mined now, and fails: nothing is left in the
    // mempool to be mined once the payer is funded again.
    await stack.payments!.reconcile();
    while ((await pendingCount()) > 0) await mine();

    // Funded again, it is refused until the operator clears what it owes; nothing is charged meanwhile.
    await rpcCall("evm_setAutomine", [true]);
    await chain.mint(account.address, 100_000n);
    const refused = await stack.paidGet(PATH, await signedPayment(key));
    expect(await refusal(refused)).toBe("payment_payer_in_arrears");
    const mpp = await Mppx.create({ methods: [usdcClientMethod(account)], polyfill: false }).fetch(`${stack.base}${PATH}`);
    expect(mpp.status).toBe(402);
    expect(((await mpp.json()) as { code: string }).code).toBe("payment_payer_in_arrears");
    expect(await chain.balanceOf(payTo)).toBe(before);
    expect(await stack.payments!.exposure.clear(account.address, "paid by bank transfer")).toBe(10);
    const served = await stack.paidGet(PATH, await signedPayment(key));
    expect(served.status).toBe(200);
    expect(await chain.balanceOf(payTo)).toBe(before + PRICE);
  });

  it("the same authorization raced onto the chain by someone else: our transfer fails but the read was paid; final, nothing lost", async () => {
    const { key, account } = await payer(100_000n);
    const payment = await signedPayment(key);
    const before = await chain.balanceOf(payTo);
    await rpcCall("evm_setAutomine", [false]);
    const res = await stack.paidGet(PATH, payment);
    expect(res.status).toBe(200);
    const { transaction } = receiptOf(res).response;
    // Sent with a higher tip than ours, mined first in the same block.
    const raced = executeElsewhere(chain, chain.accounts[1] as Hex, payment, { gas: 150_000n, maxPriorityFeePerGas: 50_000_000_000n, maxFeePerGas: 100_000_000_000n });
    await until(async () => (await pendingCount()) >= 2);
    await mine();
    await raced;
    await until(async () => (await settlementOf(transaction))[0]?.settlement !== "pending");
    expect(await lossesOf(account.address)).toEqual([]);
    expect(await exposureOf(account.address)).toEqual({ unsettled: "0", owed: "0" });
    expect(await chain.balanceOf(payTo)).toBe(before + PRICE);
    const ended = await rows<{ settlement: string }>(sql`select settlement::text from payments.claims where payer = ${account.address} and state = 'settled'`);
    expect(ended).toEqual([{ settlement: "final" }]);
  });

  it("a transaction dropped before its block (the node forgot it): found unknown, the authorization is sent again by reconciliation; final, nothing lost", async () => {
    const { key, account } = await payer(100_000n);
    const payment = await signedPayment(key);
    const before = await chain.balanceOf(payTo);
    await rpcCall("evm_setAutomine", [false]);
    const snapshot = await rpcCall("evm_snapshot");
    const res = await stack.paidGet(PATH, payment);
    expect(res.status).toBe(200);
    const { transaction } = receiptOf(res).response;
    expect(await rpc.getTransaction({ hash: transaction as Hex })).toBeTruthy();
    // Back to before the broadcast: the pending transaction is gone, as a dropped one would be.
    await rpcCall("evm_revert", [snapshot]);
    await expect(rpc.getTransaction({ hash: transaction as Hex })).rejects.toThrow();
    await mine();
    // The receipt never comes (SETTLEMENT_RECEIPT_TIMEOUT_MS): the settlement stays pending.
    await new Promise((r) => setTimeout(r, 2_000));
    expect((await settlementOf(transaction))[0]?.settlement).toBe("pending");
    // Reconciliation (every RECONCILE_AFTER_SECONDS, or asked here) finds the authorization
    // unused and still valid, and sends it again; mined, the settlement is final.
    await rpcCall("evm_setAutomine", [true]);
    await until(async () => {
      await stack.payments!.reconcile();
      if ((await pendingCount()) > 0) await mine();
      return (await rows<{ settlement: string }>(sql`select settlement::text from payments.claims where payer = ${account.address} and state = 'settled'`))[0]?.settlement === "final";
    }, 20_000);
    expect(await lossesOf(account.address)).toEqual([]);
    expect(await exposureOf(account.address)).toEqual({ unsettled: "0", owed: "0" });
    expect(await chain.balanceOf(payTo)).toBe(before + PRICE);
  });

  it("a block reorganized away after its receipt was read: the transfer is found missing at the final depth, sent again by reconciliation; final, nothing lost", async () => {
    const { key, account } = await payer(100_000n);
    const payment = await signedPayment(key);
    const before = await chain.balanceOf(payTo);
    const minedBatches = async () =>
      (await stack.payments!.runtime.metrics.registry.metrics())
        .split("\n")
        .filter((l) => l.startsWith("payments_settlement_batches_total{") && l.includes('outcome="mined"'))
        .reduce((sum, l) => sum + Number(l.split(" ").pop()), 0);
    const minedBefore = await minedBatches();
    await rpcCall("evm_setAutomine", [false]);
    const snapshot = await rpcCall("evm_snapshot");
    const res = await stack.paidGet(PATH, payment);
    expect(res.status).toBe(200);
    const { transaction } = receiptOf(res).response;
    // Mined, and its receipt read (the batch counted mined): one block deep, not yet final.
    await mine();
    await until(async () => (await minedBatches()) > minedBefore);
    expect((await settlementOf(transaction))[0]?.settlement).toBe("pending");
    // That block reorganized away: the chain goes back to before it, and two other blocks come.
    await rpcCall("evm_revert", [snapshot]);
    await mine();
    await mine();
    await expect(rpc.getTransactionReceipt({ hash: transaction as Hex })).rejects.toThrow();
    // Found missing at the final depth: reconciliation finds the authorization unused and still valid, and sends it again.
    await rpcCall("evm_setAutomine", [true]);
    await until(async () => {
      await stack.payments!.reconcile();
      return (await rows<{ settlement: string }>(sql`select settlement::text from payments.claims where payer = ${account.address} and state = 'settled'`))[0]?.settlement === "final";
    }, 20_000);
    const [ended] = await rows<{ transaction: string }>(sql`select transaction from payments.claims where payer = ${account.address} and state = 'settled'`);
    // Sent again as it was (the same nonce, call and fees sign the same transaction), now on the chain that stayed.
    expect(await rpc.getTransactionReceipt({ hash: ended!.transaction as Hex })).toMatchObject({ status: "success" });
    expect(await lossesOf(account.address)).toEqual([]);
    expect(await exposureOf(account.address)).toEqual({ unsettled: "0", owed: "0" });
    expect(await chain.balanceOf(payTo)).toBe(before + PRICE);
  });

  it("an authorization that expires unused after its read was served (its transaction dropped, the one sent again not mined in time): recorded as lost against its payer, within the cap", async () => {
    const { key, account } = await payer(100_000n);
    // A payment whose authorization lapses 14 s from now (the rail takes one that holds at least 6 s more):
    // signed by the payer's own key over the terms @x402/evm's client made, its validBefore moved closer.
    const decoded = JSON.parse(Buffer.from(await signedPayment(key), "base64").toString()) as {
      accepted: { asset: Address; extra: { name: string; version: string } };
      payload: { signature: Hex; authorization: { from: Address; to: Address; value: string; validAfter: string; validBefore: string; nonce: Hex } };
    };
    const a = decoded.payload.authorization;
    // The local chain gives each block a timestamp past the one before, so the earlier tests' blocks
    // leave its clock ahead of the wall's: the authorization must hold 14 s by both (the rail verifies
    // by the wall, the simulation runs at the chain's time), and it lapses by the wall that much later.
    const wall = Math.floor(Date.now() / 1000);
    const ahead = Math.max(0, Number((await rpc.getBlock()).timestamp) - wall);
    console.log(`expiring authorization: the chain's clock is ${ahead} s ahead of the wall's`);
    a.validBefore = String(wall + ahead + 14);
    decoded.payload.signature = await account.signTypedData({
      domain: { name: decoded.accepted.extra.name, version: decoded.accepted.extra.version, chainId: chain.chain.id, verifyingContract: decoded.accepted.asset },
      types: authorizationTypes,
      primaryType: "TransferWithAuthorization",
      message: { from: a.from, to: a.to, value: BigInt(a.value), validAfter: BigInt(a.validAfter), validBefore: BigInt(a.validBefore), nonce: a.nonce },
    });
    const payment = Buffer.from(JSON.stringify(decoded)).toString("base64");
    const before = await chain.balanceOf(payTo);
    const lossesBefore = await metric("payments_losses_total");
    await rpcCall("evm_setAutomine", [false]);
    const snapshot = await rpcCall("evm_snapshot");
    const res = await stack.paidGet(PATH, payment);
    expect(res.status).toBe(200);
    const { transaction } = receiptOf(res).response;
    expect(receiptOf(res).response).toMatchObject({ settlement: "pending" });
    // Dropped: reconciliation sends the authorization again, and no block comes before it lapses.
    await rpcCall("evm_revert", [snapshot]);
    await until(
      async () => {
        await stack.payments!.reconcile();
        return (await lossesOf(account.address)).length === 1;
      },
      (ahead + 30) * 1000,
    );
    expect(Date.now() / 1000).toBeGreaterThan(Number(a.validBefore));
    expect(await lossesOf(account.address)).toEqual([{ amount: PRICE.toString(), reason: expect.stringMatching(/^payment_expired: /) }]);
    expect(await exposureOf(account.address)).toEqual({ unsettled: "0", owed: PRICE.toString() });
    expect(await metric("payments_losses_total")).toBe(lossesBefore + 1);
    const ended = await rows<{ settlement: string }>(sql`select settlement::text from payments.claims where payer = ${account.address} and state = 'settled'`);
    expect(ended).toEqual([{ settlement: "lost" }]);
    expect(transaction).toMatch(/^0x[0-9a-f]{64}$/);
    // Mined now, what was sent again reverts on the lapsed authorization: nothing moves, and the payer is refused until cleared.
    await rpcCall("evm_setAutomine", [true]);
    await mine();
    expect(await chain.balanceOf(payTo)).toBe(before);
    expect(await refusal(await stack.paidGet(PATH, await signedPayment(key)))).toBe("payment_payer_in_arrears");
    expect(await stack.payments!.exposure.clear(account.address, "test: forgiven")).toBe(1);
  }, 180_000);

  it("the receipt of a read answered pending is asked at any time, past the redelivery window too: by the same payment, or by its payment-identifier id and payer; pending, then final and signed again; nothing served or charged", async () => {
    const { key, account } = await payer(100_000n);
    const id = generatePaymentId("pay_");
    const payment = await signedPayment(key, id);
    const before = await chain.balanceOf(payTo);
    await rpcCall("evm_setAutomine", [false]);
    const read = await stack.paidGet(PATH, payment);
    expect(read.status).toBe(200);
    const { transaction } = receiptOf(read).response;

    const pending = await askReceipt({ payment });
    expect(pending.status).toBe(200);
    expect(pending.headers.get("retry-after")).toBe("2");
    expect(pending.headers.get("cache-control")).toBe("no-store");
    const pendingBody = ReceiptReply.omit({ headers: true }).strict().parse(await pending.json());
    expect(pendingBody).toMatchObject({ route: PATH, amount: PRICE.toString(), rail: "base", network: "eip155:8453", payer: account.address, transaction, settlement: "pending", final_at: null });
    expect(receiptOf(pending).response).toMatchObject({ success: true, settlement: "pending", transaction });

    await mine();
    await mine();
    await until(async () => (await settlementOf(transaction))[0]?.settlement === "final");
    // Past the redelivery window (600 s by default): the claim is made to have settled 601 s ago.
    await rows(sql`update payments.claims set settled_at = settled_at - interval '601 seconds' where transaction = ${transaction} and payer = ${account.address}`);
    const redelivered = await stack.paidGet(PATH, payment);
    expect(await refusal(redelivered)).toBe("payment_redelivery_expired");

    const final = await askReceipt({ payment });
    expect(final.status).toBe(200);
    expect(final.headers.get("retry-after")).toBeNull();
    const finalBody = ReceiptReply.omit({ headers: true }).strict().parse(await final.json());
    expect(finalBody).toMatchObject({ claim_id: pendingBody.claim_id, settlement: "final", transaction });
    expect(finalBody.final_at).not.toBeNull();
    const header = receiptOf(final);
    expect(header.response).toMatchObject({ success: true, settlement: "final", transaction, payer: account.address });
    const jws = (header.response.extensions?.["offer-receipt"] as { info: { receipt: { signature: string } } }).info.receipt.signature;
    expect(await verifiedReceipt(jws)).toMatchObject({ settlement: "final", transaction, payer: account.address, amount: PRICE.toString() });

    // By payment-identifier id and payer, however the address is written.
    for (const payerSpelling of [account.address, account.address.toLowerCase()]) {
      const byId = await askReceipt({ query: `payer=${payerSpelling}&payment_id=${id}` });
      expect(byId.status).toBe(200);
      expect(await byId.json()).toEqual({ ...finalBody });
      expect(receiptOf(byId).response).toMatchObject({ settlement: "final", transaction });
    }

    // Nothing served again, counted or charged: the redelivery count is the refused ask's zero, the money moved once.
    expect(await rows(sql`select redeliveries from payments.claims where id = ${finalBody.claim_id}::uuid`)).toEqual([{ redeliveries: 0 }]);
    expect(await chain.balanceOf(payTo)).toBe(before + PRICE);

    // What is not that payment finds nothing: the same payload with another signature, another id, another payer.
    const decoded = JSON.parse(Buffer.from(payment, "base64").toString()) as { payload: { signature: string } };
    decoded.payload.signature = `${decoded.payload.signature.slice(0, -4)}${decoded.payload.signature.endsWith("1b") ? "1c" : "1b"}00`.slice(0, decoded.payload.signature.length);
    const forged = await askReceipt({ payment: Buffer.from(JSON.stringify(decoded)).toString("base64") });
    expect(forged.status).toBe(404);
    expect(((await forged.json()) as { error: { code: string } }).error.code).toBe("not_found");
    expect((await askReceipt({ query: `payer=${account.address}&payment_id=${generatePaymentId("pay_")}` })).status).toBe(404);
    expect((await askReceipt({ query: `payer=${privateKeyToAccount(generatePrivateKey()).address}&payment_id=${id}` })).status).toBe(404);
    const unused = await askReceipt({ payment: await signedPayment(key) });
    expect(unused.status).toBe(404);
    // Asked with neither, or malformed: a clear refusal naming what to send.
    const neither = await askReceipt({ query: `payer=${account.address}` });
    expect(neither.status).toBe(400);
    expect(await neither.json()).toMatchObject({ error: { code: "invalid_query", param: "payment_id" } });
    expect((await askReceipt({ query: `payer=${account.address}&payment_id=short` })).status).toBe(400);
    const garbled = await askReceipt({ payment: "not-a-payment" });
    expect(garbled.status).toBe(400);
    expect(await garbled.json()).toMatchObject({ error: { code: "invalid_request" } });
  });

  it("the client package asks where a kept receipt's settlement stands: pending, then final once its block is deep enough", async () => {
    const { key } = await payer(100_000n);
    const board = new BoardClient({ baseUrl: stack.base, payer: await createPayer({ rail: "base", privateKey: key }) });
    await rpcCall("evm_setAutomine", [false]);
    const read = await board.read(PATH);
    if (!read.ok) throw new Error(`not read: ${read.error.code} ${read.error.message}`);
    const kept = read.receipt!;
    expect(kept.decoded).toMatchObject({ settlement: "pending" });
    expect(await board.settlement(kept)).toMatchObject({ ok: true, value: { settlement: "pending", transaction: kept.transaction, route: PATH, decoded: { settlement: "pending" } } });
    await mine();
    await mine();
    await until(async () => {
      const now = await board.settlement(kept);
      return now.ok && now.value.settlement === "final";
    });
    expect(await board.settlement(kept)).toMatchObject({ ok: true, value: { settlement: "final", decoded: { success: true, settlement: "final", transaction: kept.transaction } } });
  });

  it("the full board (0.25 USDC, above ANSWER_BEFORE_BLOCK_MAX_PRICE) waits for its block", async () => {
    const { key } = await payer(1_000_000n);
    const res0 = await fetch(`${stack.base}/api/board/agent`);
    const required = decodePaymentRequiredHeader(res0.headers.get("payment-required")!);
    required.accepts = required.accepts.filter((a) => a.network === "eip155:8453").slice(0, 1);
    const client = x402Client.fromConfig({ schemes: [] }).register("eip155:*", new ExactEvmScheme(privateKeyToAccount(key)));
    const payment = encodePaymentSignatureHeader(await client.createPaymentPayload(required));
    await rpcCall("evm_setAutomine", [false]);
    let answered: Response | null = null;
    const read = stack.paidGet("/api/board/agent", payment).then((r) => (answered = r));
    await new Promise((r) => setTimeout(r, 700));
    expect(answered).toBeNull();
    await mine();
    const res = await read;
    expect(res.status).toBe(200);
    expect(receiptOf(res).response).toMatchObject({ settlement: "final" });
  });
});

async function pendingCount(): Promise<number> {
  const block = (await rpcCall("eth_getBlockByNumber", ["pending", false])) as { transactions: unknown[] } | null;
  return block?.transactions.length ?? 0;
}
