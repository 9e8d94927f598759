import { afterEach, beforeEach, describe, expect, it } from "vitest";
import algosdk from "algosdk";
import {
  ALGORAND_MAINNET_CAIP2,
  ALGORAND_MAINNET_GENESIS_HASH,
  USDC_MAINNET_ASA_ID,
  toClientAvmSigner,
  toFacilitatorAvmSigner,
  type ClientAvmSigner,
} from "@x402/avm";
import { ExactAvmScheme as ExactAvmClient } from "@x402/avm/exact/client";
import { ExactAvmScheme as ExactAvmFacilitator } from "@x402/avm/exact/facilitator";
import { ExactAvmScheme as ExactAvmServer } from "@x402/avm/exact/server";
import {
  ALGORAND_MAINNET_NETWORK,
  ALGORAND_MAINNET_NETWORK_FULL,
  AlgodStandInError,
  startAlgodStandIn,
  type AlgodStandIn,
  type AlgodStandInAccount,
} from "../src/avm/index.js";

type PaymentPayload = Parameters<ExactAvmFacilitator["verify"]>[0];
type PaymentRequirements = Parameters<ExactAvmFacilitator["verify"]>[1];

const PRICE_BASE_UNITS = 5000n;

interface Scene {
  payer: AlgodStandInAccount;
  payTo: AlgodStandInAccount;
  feePayer: AlgodStandInAccount;
  facilitator: ExactAvmFacilitator;
  requirements: PaymentRequirements;
  /** Creates a payment payload with the exact scheme client (by default signing as `payer`). */
  pay(signer?: ClientAvmSigner, requirements?: PaymentRequirements): Promise<PaymentPayload>;
}

/** payer holds `usdc` base units, payTo is opted in, feePayer is the facilitator's key. */
async function scene(chain: AlgodStandIn, usdc = 1_000_000n): Promise<Scene> {
  const [payer, payTo, feePayer] = chain.accounts as [AlgodStandInAccount, AlgodStandInAccount, AlgodStandInAccount];
  chain.optIn(payer.address);
  chain.mintUsdc(payer.address, usdc);
  chain.optIn(payTo.address);

  const facilitator = new ExactAvmFacilitator(
    toFacilitatorAvmSigner(feePayer.privateKeyBase64, { mainnetUrl: chain.url, algodToken: chain.token }),
  );
  // The resource server's side: price in USDC, then the facilitator's feePayer into `extra`.
  const server = new ExactAvmServer();
  const price = await server.parsePrice("$0.005", chain.network);
  const requirements = await server.enhancePaymentRequirements(
    {
      scheme: "exact",
      network: chain.network,
      amount: price.amount,
      asset: price.asset,
      payTo: payTo.address,
      maxTimeoutSeconds: 60,
      extra: {},
    },
    { x402Version: 2, scheme: "exact", network: chain.network, extra: facilitator.getExtra(chain.network) ?? {} },
    [],
  );
  const pay = async (signer = toClientAvmSigner(payer.privateKeyBase64), req = requirements): Promise<PaymentPayload> => {
    const client = new ExactAvmClient(signer, { algodUrl: chain.url, algodToken: chain.token });
    const created = await client.createPaymentPayload(2, req);
    return { x402Version: created.x402Version, accepted: req, payload: created.payload };
  };
  return { payer, payTo, feePayer, facilitator, requirements, pay };
}

function group(payload: PaymentPayload): string[] {
  return (payload.payload as { paymentGroup: string[] }).paymentGroup;
}

function withGroup(payload: PaymentPayload, paymentGroup: string[]): PaymentPayload {
  return { ...payload, payload: { ...payload.payload, paymentGroup } };
}

/** The group as the facilitator would submit it: its fee payer transaction signed. */
function signedGroup(payload: PaymentPayload, feePayer: AlgodStandInAccount): Uint8Array[] {
  return group(payload).map((b64, i) => {
    const bytes = Buffer.from(b64, "base64");
    return i === 0 ? algosdk.decodeUnsignedTransaction(bytes).signTxn(feePayer.secretKey) : new Uint8Array(bytes);
  });
}

/** The payment transaction with one encoded field replaced, keeping the original signature. */
function tamperPayment(b64: string, field: string, value: unknown): string {
  const stxn = algosdk.decodeSignedTransaction(Buffer.from(b64, "base64"));
  const data = stxn.txn.toEncodingData();
  data.set(field, value);
  const txn = algosdk.Transaction.fromEncodingData(data);
  return Buffer.from(algosdk.encodeMsgpack(new algosdk.SignedTransaction({ txn, sig: stxn.sig }))).toString("base64");
}

async function post(chain: AlgodStandIn, path: string, body: Uint8Array, token = chain.token) {
  const res = await fetch(`${chain.url}${path}`, {
    method: "POST",
    headers: { "X-Algo-API-Token": token, "Content-Type": "application/x-binary" },
    body,
  });
  return { status: res.status, body: (await res.json()) as { message: string; data?: { reason: string; "group-index"?: number } } };
}

const concat = (parts: Uint8Array[]): Uint8Array => new Uint8Array(Buffer.concat(parts));

describe("algod stand-in with the @x402/avm exact scheme", () => {
  let chain: AlgodStandIn;
  beforeEach(async () => {
    chain = await startAlgodStandIn();
  });
  afterEach(async () => {
    await chain.stop();
  });

  it("uses the network ids, genesis and USDC asset @x402/avm knows for mainnet", () => {
    expect(chain.network).toBe(ALGORAND_MAINNET_CAIP2);
    expect(chain.networkFull).toBe(`algorand:${ALGORAND_MAINNET_GENESIS_HASH}`);
    expect(chain.genesisHash).toBe(ALGORAND_MAINNET_GENESIS_HASH);
    expect(String(chain.usdcAssetId)).toBe(USDC_MAINNET_ASA_ID);
    expect([ALGORAND_MAINNET_NETWORK, ALGORAND_MAINNET_NETWORK_FULL]).toEqual([chain.network, chain.networkFull]);
    expect(chain.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(chain.token).toMatch(/^[0-9a-f]{64}$/);
  });

  it("client pays 5000 USDC base units; the facilitator verifies and settles; payTo's balance grows by 5000", async () => {
    const s = await scene(chain);
    expect(s.requirements).toMatchObject({ amount: "5000", asset: "31566704", extra: { feePayer: s.feePayer.address } });
    const feePayerAlgos = chain.microAlgosOf(s.feePayer.address);
    const payload = await s.pay();
    expect(group(payload)).toHaveLength(2); // fee payer's 0-ALGO self-payment, then the USDC transfer

    const verified = await s.facilitator.verify(payload, s.requirements);
    expect(verified).toEqual({ isValid: true, payer: s.payer.address });
    expect(chain.submitted()).toHaveLength(0); // verify only simulates

    const settled = await s.facilitator.settle(payload, s.requirements);
    expect(settled).toMatchObject({ success: true, network: chain.network, payer: s.payer.address });
    expect(chain.balanceOf(s.payTo.address)).toBe(PRICE_BASE_UNITS);
    expect(chain.balanceOf(s.payer.address)).toBe(1_000_000n - PRICE_BASE_UNITS);
    // Sponsored: the payer pays no fee, the facilitator pays the pooled minimum (2 * 1000 µAlgo).
    expect(chain.microAlgosOf(s.payer.address)).toBe(10_000_000n);
    expect(chain.microAlgosOf(s.feePayer.address)).toBe(feePayerAlgos - 2000n);

    const [accepted, ...rest] = chain.submitted();
    expect(rest).toHaveLength(0);
    expect(accepted?.txIds[1]).toBe(settled.transaction);
    expect(accepted?.groupId).toBeDefined();
    const transfer = accepted?.transactions[1]?.txn;
    expect(transfer?.assetTransfer).toMatchObject({ assetIndex: 31566704n, amount: PRICE_BASE_UNITS });
    expect(transfer?.assetTransfer?.receiver.toString()).toBe(s.payTo.address);
  });

  it("accepts the full genesis-hash network id as well", async () => {
    const s = await scene(chain);
    const requirements = { ...s.requirements, network: chain.networkFull };
    const payload = await s.pay(undefined, requirements);
    expect(await s.facilitator.settle(payload, requirements)).toMatchObject({ success: true });
    expect(chain.balanceOf(s.payTo.address)).toBe(PRICE_BASE_UNITS);
  });

  it("settling the same payload twice pays once: the stand-in refuses the committed group", async () => {
    const s = await scene(chain);
    const payload = await s.pay();
    expect(await s.facilitator.settle(payload, s.requirements)).toMatchObject({ success: true });

    const again = await s.facilitator.settle(payload, s.requirements);
    expect(again).toMatchObject({ success: false, errorReason: "invalid_exact_avm_simulation_failed" });
    expect(again.errorMessage).toMatch(/transaction already in ledger/);
    expect(chain.balanceOf(s.payTo.address)).toBe(PRICE_BASE_UNITS);
    expect(chain.submitted()).toHaveLength(1);

    // Re-POSTing the committed group itself, as a node would see a replay.
    const replay = await post(chain, "/v2/transactions", concat([...(chain.submitted()[0]?.raw ?? [])]));
    expect(replay.status).toBe(400);
    expect(replay.body.message).toMatch(/^TransactionPool\.Remember: transaction already in ledger: /);
    expect(replay.body.data).toEqual({ reason: "already_in_ledger", "group-index": 0 });
  });

  it("two concurrent settlements of one payload: both verify, exactly one lands", async () => {
    const s = await scene(chain);
    const payload = await s.pay();
    const results = await Promise.all([s.facilitator.settle(payload, s.requirements), s.facilitator.settle(payload, s.requirements)]);
    expect(results.filter((r) => r.success)).toHaveLength(1);
    const failed = results.find((r) => !r.success);
    expect(failed?.errorReason).toMatch(/^invalid_exact_avm_(settlement|simulation)_failed$/);
    expect(failed?.errorMessage).toMatch(/transaction already in ledger/);
    expect(chain.balanceOf(s.payTo.address)).toBe(PRICE_BASE_UNITS);
    expect(chain.submitted()).toHaveLength(1);
  });

  it("a payment amount changed after signing is refused by the facilitator and by the stand-in", async () => {
    const s = await scene(chain);
    const payload = await s.pay();
    const [feeTxn, payment] = group(payload) as [string, string];
    const tampered = withGroup(payload, [feeTxn, tamperPayment(payment, "aamt", 50n)]);

    const cheap = { ...s.requirements, amount: "50" };
    expect(await s.facilitator.verify({ ...tampered, accepted: cheap }, cheap)).toMatchObject({
      isValid: false,
      invalidReason: "invalid_exact_avm_invalid_signature",
    });
    expect(await s.facilitator.verify(tampered, s.requirements)).toMatchObject({
      isValid: false,
      invalidReason: "invalid_exact_avm_amount_mismatch",
    });

    const direct = await post(chain, "/v2/transactions", concat(signedGroup(tampered, s.feePayer)));
    expect(direct.status).toBe(400);
    expect(direct.body.data).toEqual({ reason: "invalid_signature", "group-index": 1 });
    expect(direct.body.message).toMatch(/signature does not verify against authorizer/);
    expect(chain.balanceOf(s.payTo.address)).toBe(0n);
    expect(chain.submitted()).toHaveLength(0);
  });

  it("a payment signed by another key is refused by the facilitator and by the stand-in", async () => {
    const s = await scene(chain);
    const intruder = chain.accounts[3] as AlgodStandInAccount;
    // Claims the payer's address, signs with the intruder's key (algosdk then names it as signer).
    const forger: ClientAvmSigner = {
      address: s.payer.address,
      signTransactions: async (txns, indexes) =>
        txns.map((t, i) => (indexes?.includes(i) ? algosdk.decodeUnsignedTransaction(t).signTxn(intruder.secretKey) : null)),
    };
    const payload = await s.pay(forger);
    expect(await s.facilitator.verify(payload, s.requirements)).toMatchObject({
      isValid: false,
      invalidReason: "invalid_exact_avm_invalid_signature",
    });

    const asSigner = await post(chain, "/v2/transactions", concat(signedGroup(payload, s.feePayer)));
    expect(asSigner.status).toBe(400);
    expect(asSigner.body.data?.reason).toBe("wrong_authorizer");
    expect(asSigner.body.message).toContain(`should have been authorized by ${s.payer.address} but was actually authorized by ${intruder.address}`);

    // The intruder's raw signature without naming a signer.
    const [feeTxn, payment] = group(payload) as [string, string];
    const txn = algosdk.decodeSignedTransaction(Buffer.from(payment, "base64")).txn;
    const bare = algosdk.encodeMsgpack(new algosdk.SignedTransaction({ txn, sig: txn.rawSignTxn(intruder.secretKey) }));
    const rawSig = await post(chain, "/v2/transactions", concat(signedGroup(withGroup(payload, [feeTxn, Buffer.from(bare).toString("base64")]), s.feePayer)));
    expect(rawSig.body.data).toEqual({ reason: "invalid_signature", "group-index": 1 });
    expect(chain.submitted()).toHaveLength(0);
  });

  it("a fee payer transaction altered inside the group passes the facilitator's own checks but not the stand-in's group id", async () => {
    const s = await scene(chain);
    const payload = await s.pay();
    const [feeTxn, payment] = group(payload) as [string, string];
    const altered = algosdk.decodeUnsignedTransaction(Buffer.from(feeTxn, "base64"));
    altered.fee = 3000n; // still under the facilitator's 2 * 5000 cap; the group id no longer matches
    const tampered = withGroup(payload, [Buffer.from(algosdk.encodeUnsignedTransaction(altered)).toString("base64"), payment]);

    const verified = await s.facilitator.verify(tampered, s.requirements);
    expect(verified).toMatchObject({ isValid: false, invalidReason: "invalid_exact_avm_simulation_failed" });
    expect(verified.invalidMessage).toMatch(/incomplete group/);
    expect(chain.submitted()).toHaveLength(0);
  });

  it("insufficient USDC: verify fails with the simulation's underflow", async () => {
    const s = await scene(chain, PRICE_BASE_UNITS - 1n);
    const verified = await s.facilitator.verify(await s.pay(), s.requirements);
    expect(verified).toMatchObject({ isValid: false, invalidReason: "invalid_exact_avm_simulation_failed" });
    expect(verified.invalidMessage).toMatch(/underflow on subtracting 5000 from sender amount 4999$/);
    expect(chain.balanceOf(s.payer.address)).toBe(PRICE_BASE_UNITS - 1n);
  });

  it("a payTo that has not opted in to USDC cannot be paid", async () => {
    const s = await scene(chain);
    const stranger = chain.accounts[3] as AlgodStandInAccount;
    const requirements = { ...s.requirements, payTo: stranger.address };
    const verified = await s.facilitator.verify(await s.pay(undefined, requirements), requirements);
    expect(verified).toMatchObject({ isValid: false, invalidReason: "invalid_exact_avm_simulation_failed" });
    expect(verified.invalidMessage).toContain(`asset 31566704 missing from ${stranger.address}`);
  });

  it("a payload past its last valid round is dead", async () => {
    const s = await scene(chain);
    const payload = await s.pay();
    chain.advanceRounds(11); // the client signs for 10 rounds
    const verified = await s.facilitator.verify(payload, s.requirements);
    expect(verified).toMatchObject({ isValid: false, invalidReason: "invalid_exact_avm_simulation_failed" });
    expect(verified.invalidMessage).toMatch(/txn dead: round \d+ outside of \d+--\d+/);
  });

  it("a facilitator without µAlgos for the fees cannot settle", async () => {
    const s = await scene(chain);
    const broke = await startAlgodStandIn({ microAlgos: 0n });
    try {
      const [payer, payTo, feePayer] = broke.accounts as [AlgodStandInAccount, AlgodStandInAccount, AlgodStandInAccount];
      broke.fund(payer.address, 200_000n);
      broke.optIn(payer.address);
      broke.mintUsdc(payer.address, PRICE_BASE_UNITS);
      broke.fund(payTo.address, 200_000n);
      broke.optIn(payTo.address);
      const facilitator = new ExactAvmFacilitator(toFacilitatorAvmSigner(feePayer.privateKeyBase64, { mainnetUrl: broke.url, algodToken: broke.token }));
      const requirements = { ...s.requirements, payTo: payTo.address, extra: { feePayer: feePayer.address } };
      const client = new ExactAvmClient(toClientAvmSigner(payer.privateKeyBase64), { algodUrl: broke.url, algodToken: broke.token });
      const created = await client.createPaymentPayload(2, requirements);
      const settled = await facilitator.settle({ x402Version: 2, accepted: requirements, payload: created.payload }, requirements);
      expect(settled).toMatchObject({ success: false, errorReason: "invalid_exact_avm_simulation_failed" });
      expect(settled.errorMessage).toMatch(/overspend \(account [A-Z2-7]{58}, balance 0 microAlgos, tried to spend 2000\)/);
      expect(broke.balanceOf(payTo.address)).toBe(0n);
    } finally {
      await broke.stop();
    }
  });
});

describe("algod stand-in wire", () => {
  let chain: AlgodStandIn;
  beforeEach(async () => {
    chain = await startAlgodStandIn();
  });
  afterEach(async () => {
    await chain.stop();
  });

  it("requires its API token", async () => {
    const res = await fetch(`${chain.url}/v2/status`, { headers: { "X-Algo-API-Token": "0".repeat(64) } });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ message: "Invalid API Token" });
    const none = await fetch(`${chain.url}/v2/status`);
    expect(none.status).toBe(401);
  });

  it("answers only the routes it serves", async () => {
    const res = await fetch(`${chain.url}/v2/blocks/1`, { headers: { "X-Algo-API-Token": chain.token } });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ message: "the algod stand-in does not serve GET /v2/blocks/1" });
  });

  it("serves algosdk's Algodv2: params, submit, pending, status, accounts", async () => {
    const [alice, bob] = chain.accounts as [AlgodStandInAccount, AlgodStandInAccount];
    chain.optIn(alice.address);
    chain.mintUsdc(alice.address, 700n);
    chain.optIn(bob.address);
    const algod = new algosdk.Algodv2(chain.token, chain.url);

    const sp = await algod.getTransactionParams().do();
    expect(sp.genesisID).toBe("mainnet-v1.0");
    expect(Buffer.from(sp.genesisHash ?? []).toString("base64")).toBe(chain.genesisHash);
    const usdc = (amount: number) =>
      algosdk.makeAssetTransferTxnWithSuggestedParamsFromObject({
        sender: alice.address,
        receiver: bob.address,
        assetIndex: chain.usdcAssetId,
        amount,
        suggestedParams: sp,
      });
    const [t1, t2] = algosdk.assignGroupID([usdc(300), usdc(400)]) as [algosdk.Transaction, algosdk.Transaction];
    const { txid } = await algod.sendRawTransaction([t1.signTxn(alice.secretKey), t2.signTxn(alice.secretKey)]).do();
    expect(txid).toBe(t1.txID());
    const confirmed = await algosdk.waitForConfirmation(algod, t2.txID(), 4);
    expect(confirmed.confirmedRound).toBe(chain.currentRound());
    expect((await algod.status().do()).lastRound).toBe(chain.currentRound());

    const holding = await algod.accountAssetInformation(bob.address, chain.usdcAssetId).do();
    expect(holding.assetHolding?.amount).toBe(700n);
    const info = await algod.accountInformation(alice.address).do();
    expect(info.amount).toBe(10_000_000n - 2000n);
    expect(info.minBalance).toBe(200_000n);
    expect(info.assets?.[0]?.amount).toBe(0n);
    await expect(algod.accountAssetInformation(chain.accounts[2]?.address ?? "", chain.usdcAssetId).do()).rejects.toThrow(
      /account asset information not found/,
    );
  });

  it("applies a group all or nothing", async () => {
    const [alice, bob] = chain.accounts as [AlgodStandInAccount, AlgodStandInAccount];
    chain.optIn(alice.address);
    chain.mintUsdc(alice.address, 500n);
    chain.optIn(bob.address);
    const algod = new algosdk.Algodv2(chain.token, chain.url);
    const sp = await algod.getTransactionParams().do();
    const usdc = (amount: number) =>
      algosdk.makeAssetTransferTxnWithSuggestedParamsFromObject({ sender: alice.address, receiver: bob.address, assetIndex: chain.usdcAssetId, amount, suggestedParams: sp });
    const send = (txns: algosdk.Transaction[]) => post(chain, "/v2/transactions", concat(algosdk.assignGroupID(txns).map((t) => t.signTxn(alice.secretKey))));
    const res = await send([usdc(300), usdc(250)]);
    expect(res.body.data).toEqual({ reason: "asset_underflow", "group-index": 1 });
    expect(res.body.message).toMatch(/underflow on subtracting 250 from sender amount 200$/);
    // The same transaction twice in one group has one txid: the second is a duplicate.
    expect((await send([usdc(100), usdc(100)])).body.data).toEqual({ reason: "already_in_ledger", "group-index": 1 });
    expect(chain.balanceOf(alice.address)).toBe(500n);
    expect(chain.balanceOf(bob.address)).toBe(0n);
    expect(chain.microAlgosOf(alice.address)).toBe(10_000_000n);
  });

  it("checks fee pooling, genesis, rounds and group ids on submit", async () => {
    const [alice] = chain.accounts as [AlgodStandInAccount];
    const algod = new algosdk.Algodv2(chain.token, chain.url);
    const sp = await algod.getTransactionParams().do();
    const pay = (over: Partial<algosdk.SuggestedParams> = {}, note = "x") =>
      algosdk.makePaymentTxnWithSuggestedParamsFromObject({
        sender: alice.address,
        receiver: alice.address,
        amount: 0,
        note: new TextEncoder().encode(note),
        suggestedParams: { ...sp, ...over },
      });
    const send = (txns: algosdk.Transaction[]) => post(chain, "/v2/transactions", concat(txns.map((t) => t.signTxn(alice.secretKey))));

    const unfunded = algosdk.assignGroupID([pay({ flatFee: true, fee: 1500n }, "a"), pay({ flatFee: true, fee: 0n }, "b")]);
    expect((await send(unfunded)).body.message).toBe("txgroup had 1500 in fees, which is less than the minimum 2 * 1000");

    const testnet = pay({ genesisHash: algosdk.base64ToBytes("SGO1GKSzyE7IEPItTxCByw9x8FmnrCDexi9/cOUJOiI="), genesisID: "testnet-v1.0" });
    expect((await send([testnet])).body.data?.reason).toBe("genesis_mismatch");

    const future = pay({ firstValid: chain.currentRound() + 5n, lastValid: chain.currentRound() + 10n });
    expect((await send([future])).body.message).toMatch(/txn dead: round \d+ outside of/);

    const [a, b] = algosdk.assignGroupID([pay({}, "a"), pay({}, "b")]) as [algosdk.Transaction, algosdk.Transaction];
    expect((await send([a])).body.data).toEqual({ reason: "group_id_mismatch", "group-index": 0 });
    expect((await send([a, b])).status).toBe(200);

    const garbage = await post(chain, "/v2/transactions", new Uint8Array([0x82, 0xa3]));
    expect(garbage.body.data?.reason).toBe("decode_failed");
    expect(chain.submitted()).toHaveLength(1);
  });

  it("test helpers refuse what the chain would not hold", () => {
    const poor = algosdk.generateAccount().addr.toString();
    expect(() => chain.fund(poor, 5n)).toThrow(AlgodStandInError);
    expect(() => chain.mintUsdc(chain.accounts[0]?.address ?? "", 1n)).toThrow(/not_opted_in/);
    chain.fund(poor, 150_000n);
    expect(() => chain.optIn(poor)).toThrow(/below_min_balance/);
    expect(chain.isOptedIn(poor)).toBe(false);
  });
});
