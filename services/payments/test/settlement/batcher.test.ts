import { eip3009TokenAbi, startEvmChain, type EvmChain } from "@board/test-chains/evm";
import { createPublicClient, createWalletClient, http, parseAbiItem, toHex, type Address, type Hex, type LocalAccount, type PublicClient } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { authorizationTypes } from "mppx/evm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { baseReader, baseSigner, type BaseSigner } from "../../src/rails/base-exact.js";
import type { Eip3009Authorization } from "../../src/rails/eip3009.js";
import type { SettlementOutcome } from "../../src/rails/mpp/server-method.js";
import { aggregate3Abi, MULTICALL3 } from "../../src/settlement/aggregate3.js";
import { baseBatchChain } from "../../src/settlement/base-batch-chain.js";
import { nextExpectedSize, SettlementBatcher, SettlementNotSent, SettlementUnknown, type BatchChain, type BatchReport, type BatchSettings } from "../../src/settlement/batcher.js";

const VALUE = 5000n;
const CLOSED_PORT = "http://127.0.0.1:9/";

let chain: EvmChain;
/** Plain reads and test-only JSON-RPC (evm_mine, evm_setAutomine), not through the code under test. */
let rpc: PublicClient;
let signer: BaseSigner;
let reader: PublicClient;
let real: BatchChain;
let facilitator: Address;
let relayer: ReturnType<typeof walletOf>;

const walletOf = (key: Hex) => createWalletClient({ account: privateKeyToAccount(key), chain: chain.chain, transport: http(chain.rpcUrl), pollingInterval: 20 });
const now = () => BigInt(Math.floor(Date.now() / 1000));
const newAddress = () => privateKeyToAccount(generatePrivateKey()).address;
const txCount = (address: Address) => rpc.getTransactionCount({ address, blockTag: "latest" });
const used = (a: Eip3009Authorization) =>
  rpc.readContract({ address: chain.usdc, abi: eip3009TokenAbi, functionName: "authorizationState", args: [a.from, a.nonce] });

/** A fresh payer holding `usdc` base units. */
async function payer(usdc: bigint): Promise<LocalAccount> {
  const account = privateKeyToAccount(generatePrivateKey());
  if (usdc > 0n) await chain.mint(account.address, usdc);
  return account;
}

/** The payer's EIP-3009 authorization of `value` to `to`, signed over the USDC domain of the local chain. */
async function authorize(account: LocalAccount, to: Address, value = VALUE): Promise<Eip3009Authorization> {
  const message = { from: account.address, to, value, validAfter: now() - 600n, validBefore: now() + 600n, nonce: toHex(crypto.getRandomValues(new Uint8Array(32))) };
  const signature = await account.signTypedData({
    domain: { name: "USD Coin", version: "2", chainId: chain.chainId, verifyingContract: chain.usdc },
    types: authorizationTypes,
    primaryType: "TransferWithAuthorization",
    message,
  });
  return { ...message, signature };
}

/** `n` authorizations of VALUE to `payTo`, each from a fresh payer holding VALUE (mints one after another: the minter has no nonce manager). */
async function funded(n: number, payTo: Address): Promise<Eip3009Authorization[]> {
  const out: Eip3009Authorization[] = [];
  for (let i = 0; i < n; i++) out.push(await authorize(await payer(VALUE), payTo));
  return out;
}

/** transferWithAuthorization sent straight to the token by another account (not the batcher); its receipt. */
async function transferDirectly(a: Eip3009Authorization) {
  const hash = await relayer.writeContract({
    address: chain.usdc,
    abi: eip3009TokenAbi,
    functionName: "transferWithAuthorization",
    args: [a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, a.signature],
  });
  const receipt = await rpc.waitForTransactionReceipt({ hash });
  expect(receipt.status).toBe("success");
  return receipt;
}

function batcher(settings: Partial<BatchSettings>, on: BatchChain = real, reports: BatchReport[] = []) {
  const full: BatchSettings = { maxSize: 64, windowMs: 50, receiptTimeoutMs: 10_000, receiptPollMs: 20, ...settings };
  return new SettlementBatcher(on, chain.usdc, full, (r) => reports.push(r));
}

/** Every call reported a success: nothing is refused before sending, the chain decides each one. */
const trustingSimulation = (on: BatchChain): BatchChain => ({ ...on, simulate: async (calls) => calls.map(() => ({ success: true, returnData: "0x" as Hex })) });

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const ok = (o: SettlementOutcome) => {
  expect(o.ok).toBe(true);
  return (o as { transaction: Hex }).transaction;
};

beforeAll(async () => {
  chain = await startEvmChain({ accounts: 2 });
  rpc = createPublicClient({ chain: chain.chain, transport: http(chain.rpcUrl), pollingInterval: 20 });
  const facilitatorKey = chain.accounts[0] as Hex;
  facilitator = privateKeyToAccount(facilitatorKey).address;
  signer = baseSigner({ rpcUrl: chain.rpcUrl, facilitatorKey, verifier: "native" });
  reader = baseReader({ rpcUrl: chain.rpcUrl });
  real = baseBatchChain(signer, reader);
  relayer = walletOf(chain.accounts[1] as Hex);
}, 60_000);

afterAll(async () => {
  await chain?.stop();
});

describe("nextExpectedSize", () => {
  it("follows the demand a window showed, within 1..maxSize", () => {
    expect(nextExpectedSize(32, 16, 32)).toBe(16);
    expect(nextExpectedSize(16, 20, 32)).toBe(20);
    expect(nextExpectedSize(16, 40, 32)).toBe(32);
    expect(nextExpectedSize(1, 0, 32)).toBe(1);
  });

  it("falls at most by half per batch: a straggler alone in its window does not make the next batches single", () => {
    expect(nextExpectedSize(16, 1, 32)).toBe(8);
    expect(nextExpectedSize(8, 1, 32)).toBe(4);
    expect(nextExpectedSize(3, 1, 32)).toBe(2);
  });
});

describe("SettlementBatcher on a local chain", () => {
  it("settles good payments in one transaction and refuses the unfunded and the already used at once", async () => {
    const payTo = newAddress();
    const good = await funded(4, payTo);
    const broke = await authorize(await payer(VALUE - 1n), payTo);
    const spent = await authorize(await payer(VALUE), payTo);
    await transferDirectly(spent);
    const before = { payTo: await chain.balanceOf(payTo), nonce: await txCount(facilitator) };
    const reports: BatchReport[] = [];
    const b = batcher({ maxSize: 6, windowMs: 5000 }, real, reports);

    const outcomes = await Promise.all([good[0]!, broke, good[1]!, spent, good[2]!, good[3]!].map((a) => b.settle(a)));
    const [g0, bad1, g1, bad2, g2, g3] = outcomes;

    const hashes = [g0!, g1!, g2!, g3!].map(ok);
    expect(new Set(hashes).size).toBe(1);
    const hash = hashes[0]!;
    expect(hash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(bad1).toMatchObject({ ok: false, reason: "payment_insufficient_funds" });
    expect(bad2).toMatchObject({ ok: false, reason: "payment_already_used" });
    // Refused by the simulation: not in the transaction.
    expect(bad1).not.toHaveProperty("transaction");
    expect(bad2).not.toHaveProperty("transaction");

    expect(await txCount(facilitator)).toBe(before.nonce + 1);
    const tx = await rpc.getTransaction({ hash });
    expect(tx.to?.toLowerCase()).toBe(MULTICALL3.toLowerCase());
    expect(tx.from.toLowerCase()).toBe(facilitator.toLowerCase());
    expect(await chain.balanceOf(payTo)).toBe(before.payTo + 4n * VALUE);
    expect(await chain.balanceOf(broke.from)).toBe(VALUE - 1n);
    expect(await used(broke)).toBe(false);
    for (const a of good) expect(await used(a)).toBe(true);
    expect(reports).toEqual([expect.objectContaining({ size: 6, sent: 4, transferred: 4, outcome: "mined", transaction: hash })]);
  });

  it("closes a batch as soon as it holds maxSize, well before windowMs; the rest waits for its own window", async () => {
    const payTo = newAddress();
    const auths = await funded(4, payTo);
    const reports: BatchReport[] = [];
    const b = batcher({ maxSize: 3, windowMs: 1500 }, real, reports);
    const started = performance.now();
    const elapsed: number[] = [];
    const settled = auths.map((a, i) =>
      b.settle(a).then((o) => {
        elapsed[i] = performance.now() - started;
        return o;
      }),
    );
    const [o0, o1, o2, o3] = await Promise.all(settled);
    const full = [o0!, o1!, o2!].map(ok);
    expect(new Set(full).size).toBe(1);
    for (const ms of elapsed.slice(0, 3)) expect(ms).toBeLessThan(1000);
    // The fourth opened a new batch that only its window closed.
    expect(ok(o3!)).not.toBe(full[0]);
    expect(elapsed[3]).toBeGreaterThanOrEqual(1500);
    expect(reports.map((r) => r.size)).toEqual([3, 1]);
    expect(await chain.balanceOf(payTo)).toBe(4n * VALUE);
  });

  it("closes a batch of fewer than maxSize after windowMs, all of them together", async () => {
    const payTo = newAddress();
    const auths = await funded(2, payTo);
    const reports: BatchReport[] = [];
    const windowMs = 400;
    const b = batcher({ maxSize: 10, windowMs }, real, reports);
    const started = performance.now();
    const outcomes = await Promise.all(auths.map((a) => b.settle(a)));
    expect(performance.now() - started).toBeGreaterThanOrEqual(windowMs);
    expect(new Set(outcomes.map(ok)).size).toBe(1);
    expect(reports).toEqual([expect.objectContaining({ size: 2, sent: 2, transferred: 2, outcome: "mined" })]);
  });

  it("once a window has shown the demand, closes a batch as soon as it holds that many, when nothing verified is still on its way", async () => {
    const payTo = newAddress();
    const [first, second] = [await funded(3, payTo), await funded(3, payTo)];
    const reports: BatchReport[] = [];
    const windowMs = 1500;
    // The expectation falls by half at most per batch: from maxSize 6, the first window's 3 are taken at once.
    const b = batcher({ maxSize: 6, windowMs }, real, reports);
    // Nothing is known yet: the first batch waits for its window, which shows 3 authorizations.
    let started = performance.now();
    await Promise.all(first.map((a) => b.settle(a)));
    expect(performance.now() - started).toBeGreaterThanOrEqual(windowMs);
    // The next 3, verified (expected) first as the claim desk does, close the batch at once.
    for (const a of second) b.expect(a);
    started = performance.now();
    const outcomes = await Promise.all(second.map((a) => b.settle(a)));
    expect(performance.now() - started).toBeLessThan(windowMs / 2);
    expect(new Set(outcomes.map(ok)).size).toBe(1);
    expect(reports.map((r) => [r.size, r.transferred])).toEqual([[3, 3], [3, 3]]);
    expect(await chain.balanceOf(payTo)).toBe(6n * VALUE);
  });

  it("waits for a payment verified here and not yet handed to settle, and closes when it comes", async () => {
    const payTo = newAddress();
    const [first, second] = [await funded(2, payTo), await funded(3, payTo)];
    const reports: BatchReport[] = [];
    const windowMs = 2000;
    const b = batcher({ maxSize: 4, windowMs }, real, reports);
    await Promise.all(first.map((a) => b.settle(a)));
    for (const a of second) b.expect(a);
    const started = performance.now();
    const early = second.slice(0, 2).map((a) => b.settle(a));
    await sleep(300);
    // Two were expected by the demand, but a third is verified and on its way: the batch waits for it.
    expect(reports).toHaveLength(1);
    const outcomes = await Promise.all([...early, b.settle(second[2]!)]);
    const elapsed = performance.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(300);
    expect(elapsed).toBeLessThan(windowMs);
    expect(new Set(outcomes.map(ok)).size).toBe(1);
    expect(reports.map((r) => r.size)).toEqual([2, 3]);
  });

  it("while a batch is in flight, the next gathers for its whole window", async () => {
    const payTo = newAddress();
    const [first, second, third] = [await funded(2, payTo), await funded(2, payTo), await funded(2, payTo)];
    const reports: BatchReport[] = [];
    const windowMs = 600;
    // Each broadcast is held 1.5 s: the batch stays in flight while the next one fills.
    const slowSend: BatchChain = { ...real, send: async (calls) => (await sleep(1500), real.send(calls)) };
    const b = batcher({ maxSize: 4, windowMs }, slowSend, reports);
    await Promise.all(first.map((a) => b.settle(a)));
    // The demand is 2: these close at once, and their batch is in flight for 1.5 s.
    const inFlight = Promise.all(second.map((a) => b.settle(a)));
    await sleep(50);
    expect(reports).toHaveLength(1);
    const started = performance.now();
    const closed: number[] = [];
    const last = Promise.all(third.map((a) => b.settle(a).then((o) => (closed.push(performance.now() - started), o))));
    await Promise.all([inFlight, last]);
    // Settled only after their own window and their own held broadcast.
    for (const ms of closed) expect(ms).toBeGreaterThanOrEqual(windowMs + 1500);
    expect(reports.map((r) => r.size)).toEqual([2, 2, 2]);
    expect(await chain.balanceOf(payTo)).toBe(6n * VALUE);
  });

  it("sends a payment only once it is ready: one whose claim was found closed (or whose record failed) is left out, nothing moves for it", async () => {
    const payTo = newAddress();
    const [good, closed, failedRecord, late] = await funded(4, payTo);
    const reports: BatchReport[] = [];
    const b = batcher({ maxSize: 4, windowMs: 5000 }, real, reports);
    let recordLate!: (ok: boolean) => void;
    const lateRecord = new Promise<boolean>((r) => (recordLate = r));
    const outcomes = Promise.all([
      b.settle(good!, Promise.resolve(true)),
      b.settle(closed!, Promise.resolve(false)),
      b.settle(failedRecord!, Promise.reject(new Error("the database did not answer"))),
      b.settle(late!, lateRecord),
    ]);
    // The batch waits for the slow record before it sends anything.
    await sleep(300);
    expect(reports).toHaveLength(0);
    expect(await txCount(facilitator)).toBe(await rpc.getTransactionCount({ address: facilitator, blockTag: "pending" }));
    recordLate(true);
    const [o0, o1, o2, o3] = await outcomes;
    const hash = ok(o0!);
    expect(ok(o3!)).toBe(hash);
    for (const o of [o1, o2]) expect(o).toMatchObject({ ok: false, reason: "payment_already_used" });
    expect(await used(closed!)).toBe(false);
    expect(await used(failedRecord!)).toBe(false);
    expect(await chain.balanceOf(payTo)).toBe(2n * VALUE);
    expect(reports).toEqual([expect.objectContaining({ size: 4, sent: 2, transferred: 2, outcome: "mined", transaction: hash })]);
  });

  it("decides each payment by its own call: the one the chain refused inside the batch fails, the others settle", async () => {
    const payTo = newAddress();
    const a = await authorize(await payer(VALUE), payTo);
    const b2 = await authorize(await payer(VALUE), payTo);
    const broke = await authorize(await payer(0n), payTo);
    // One payer, funds for one of its two authorizations: the second's Transfer would look like the first's.
    const single = await payer(VALUE);
    const once = await authorize(single, payTo);
    const twice = await authorize(single, payTo);
    const spent = await authorize(await payer(VALUE), payTo);
    await transferDirectly(spent);
    const before = { payTo: await chain.balanceOf(payTo), nonce: await txCount(facilitator) };
    const reports: BatchReport[] = [];
    const b = batcher({ maxSize: 6 }, trustingSimulation(real), reports);

    const [oa, oBroke, ob, oOnce, oTwice, oSpent] = await Promise.all([a, broke, b2, once, twice, spent].map((x) => b.settle(x)));
    const hash = ok(oa!);
    expect(ok(ob!)).toBe(hash);
    expect(ok(oOnce!)).toBe(hash);
    for (const refused of [oBroke, oTwice, oSpent]) expect(refused).toMatchObject({ ok: false, reason: "payment_settlement_failed", transaction: hash });

    expect(await txCount(facilitator)).toBe(before.nonce + 1);
    expect((await rpc.getTransactionReceipt({ hash })).status).toBe("success");
    expect(await chain.balanceOf(payTo)).toBe(before.payTo + 3n * VALUE);
    expect(await chain.balanceOf(single.address)).toBe(0n);
    expect(await used(once)).toBe(true);
    expect(await used(twice)).toBe(false);
    expect(await used(broke)).toBe(false);
    expect(reports).toEqual([expect.objectContaining({ size: 6, sent: 6, transferred: 3, outcome: "mined", transaction: hash })]);
  });

  it("refuses every payment of a batch whose transaction reverted; nothing moved and each authorization stays unused", async () => {
    const payTo = newAddress();
    const auths = await funded(3, payTo);
    const starved: BatchChain = {
      ...real,
      // Far too little gas for three transfers: mined with status 0.
      send: (calls) => signer.writeContract({ address: MULTICALL3, abi: aggregate3Abi, functionName: "aggregate3", args: [calls], gas: 60_000n }),
    };
    const reports: BatchReport[] = [];
    const before = await txCount(facilitator);
    const b = batcher({ maxSize: 3 }, starved, reports);
    const outcomes = await Promise.all(auths.map((a) => b.settle(a)));

    const hash = (outcomes[0] as { transaction?: Hex }).transaction;
    expect(hash).toMatch(/^0x[0-9a-f]{64}$/);
    for (const o of outcomes) expect(o).toMatchObject({ ok: false, reason: "payment_settlement_failed", detail: expect.stringMatching(/batch reverted/), transaction: hash });
    expect(await txCount(facilitator)).toBe(before + 1);
    expect((await rpc.getTransactionReceipt({ hash: hash! })).status).toBe("reverted");
    expect(await chain.balanceOf(payTo)).toBe(0n);
    for (const a of auths) {
      expect(await chain.balanceOf(a.from)).toBe(VALUE);
      expect(await used(a)).toBe(false);
    }
    expect(reports).toEqual([expect.objectContaining({ size: 3, sent: 3, transferred: 0, outcome: "reverted", transaction: hash })]);

    // Still good: the same authorizations settle in a batch with enough gas.
    const fresh = batcher({ maxSize: 3 });
    const again = await Promise.all(auths.map((a) => fresh.settle(a)));
    expect(new Set(again.map(ok)).size).toBe(1);
    expect(await chain.balanceOf(payTo)).toBe(3n * VALUE);
  });

  it("a batch never mined: every settle rejects SettlementUnknown with the hash; mined later, each authorization is used exactly once", async () => {
    const payTo = newAddress();
    const auths = await funded(3, payTo);
    const reports: BatchReport[] = [];
    await rpc.request({ method: "evm_setAutomine" as never, params: [false] as never });
    try {
      const b = batcher({ maxSize: 3, receiptTimeoutMs: 500, receiptPollMs: 50 }, real, reports);
      const started = performance.now();
      const results = await Promise.allSettled(auths.map((a) => b.settle(a)));
      expect(performance.now() - started).toBeGreaterThanOrEqual(450);
      const errors = results.map((r) => {
        expect(r.status).toBe("rejected");
        return (r as PromiseRejectedResult).reason as unknown;
      });
      for (const e of errors) expect(e).toBeInstanceOf(SettlementUnknown);
      const hash = (errors[0] as SettlementUnknown).transaction;
      expect(hash).toMatch(/^0x[0-9a-f]{64}$/);
      for (const e of errors) expect((e as SettlementUnknown).transaction).toBe(hash);
      expect(reports).toEqual([expect.objectContaining({ size: 3, sent: 3, outcome: "unknown", transaction: hash })]);
      for (const a of auths) expect(await used(a)).toBe(false);
      expect(await chain.balanceOf(payTo)).toBe(0n);

      await rpc.request({ method: "evm_mine" as never, params: [] as never });
      const receipt = await rpc.getTransactionReceipt({ hash: hash! });
      expect(receipt.status).toBe("success");
      for (const a of auths) expect(await used(a)).toBe(true);
      expect(await chain.balanceOf(payTo)).toBe(3n * VALUE);
      // Exactly once: one AuthorizationUsed per authorization in the whole chain.
      const logs = await rpc.getLogs({ address: chain.usdc, event: authorizationUsed, fromBlock: 0n });
      for (const a of auths) expect(logs.filter((l) => l.args.nonce === a.nonce && l.args.authorizer === a.from)).toHaveLength(1);
    } finally {
      await rpc.request({ method: "evm_setAutomine" as never, params: [true] as never });
    }
  });

  it("answers before the block: a payment let answer early resolves once its batch is broadcast and unmined, its final outcome following the block", async () => {
    const payTo = newAddress();
    const [early, waiting] = await funded(2, payTo);
    await rpc.request({ method: "evm_setAutomine" as never, params: [false] as never });
    try {
      const b = batcher({ maxSize: 2, receiptPollMs: 20 });
      const first = b.settleEarly(early!, Promise.resolve(true), () => Promise.resolve(true));
      const second = b.settleEarly(waiting!, Promise.resolve(true), () => Promise.resolve(false));
      const answered = await first;
      expect(answered).toMatchObject({ ok: true, pending: true, transaction: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
      if (!("pending" in answered)) throw new Error("not answered early");
      // Broadcast, not mined: nothing moved yet, and the one not let answer early still waits.
      expect(await used(early!)).toBe(false);
      let secondDone = false;
      void second.then(() => (secondDone = true));
      await sleep(100);
      expect(secondDone).toBe(false);
      await rpc.request({ method: "evm_mine" as never, params: [] as never });
      expect(await answered.final).toEqual({ ok: true, transaction: answered.transaction });
      expect(await second).toEqual({ ok: true, transaction: answered.transaction });
      expect(await chain.balanceOf(payTo)).toBe(2n * VALUE);
    } finally {
      await rpc.request({ method: "evm_setAutomine" as never, params: [true] as never });
    }
  });

  it("with finalConfirmations 2, an early payment is final one block past its own; one that waited for its block is answered at its receipt; a block reorganized away at that depth leaves it unknown", async () => {
    const payTo = newAddress();
    const [early, waiting, reorganized] = await funded(3, payTo);
    const mine = () => rpc.request({ method: "evm_mine" as never, params: [] as never });
    await rpc.request({ method: "evm_setAutomine" as never, params: [false] as never });
    try {
      const b = batcher({ maxSize: 2, receiptPollMs: 20, finalConfirmations: 2 });
      const first = b.settleEarly(early!, Promise.resolve(true), () => Promise.resolve(true));
      const second = b.settleEarly(waiting!, Promise.resolve(true), () => Promise.resolve(false));
      const answered = await first;
      if (!("pending" in answered)) throw new Error("not answered early");
      let final: SettlementOutcome | null = null;
      void answered.final.then((o) => (final = o));
      await mine();
      expect(await second).toEqual({ ok: true, transaction: answered.transaction });
      await sleep(200);
      expect(final).toBeNull();
      await mine();
      expect(await answered.final).toEqual({ ok: true, transaction: answered.transaction });

      // Mined, its receipt read, then the block taken away (the chain back to before it) and two others mined.
      const snapshot = await rpc.request({ method: "evm_snapshot" as never, params: [] as never });
      const reports: BatchReport[] = [];
      const c = batcher({ maxSize: 1, receiptPollMs: 20, finalConfirmations: 2 }, real, reports);
      const gone = await c.settleEarly(reorganized!, Promise.resolve(true), () => Promise.resolve(true));
      if (!("pending" in gone)) throw new Error("not answered early");
      await mine();
      for (let i = 0; i < 100 && reports.length === 0; i++) await sleep(20);
      expect(reports[0]?.outcome).toBe("mined");
      await rpc.request({ method: "evm_revert" as never, params: [snapshot] as never });
      await mine();
      await mine();
      await expect(gone.final).rejects.toBeInstanceOf(SettlementUnknown);
      expect(await used(reorganized!)).toBe(false);
    } finally {
      await rpc.request({ method: "evm_setAutomine" as never, params: [true] as never });
    }
  });

  it("once a batch's first receipt ask found it unmined, the next batch's early payments are answered at its broadcast, before any receipt ask; a chain that mined at once again brings the ask back", async () => {
    const payTo = newAddress();
    const [first, second, third] = await funded(3, payTo);
    // Receipt asks answered by the node, by transaction.
    const asks: Hex[] = [];
    const counting: BatchChain = { ...real, receipt: (hash) => real.receipt(hash).finally(() => asks.push(hash)) };
    const mine = () => rpc.request({ method: "evm_mine" as never, params: [] as never });
    const b = batcher({ maxSize: 1, receiptPollMs: 20 }, counting);
    await rpc.request({ method: "evm_setAutomine" as never, params: [false] as never });
    try {
      // Nothing known of the chain yet: answered once the first ask found the batch unmined.
      const one = await b.settleEarly(first!, Promise.resolve(true), () => Promise.resolve(true));
      if (!("pending" in one)) throw new Error("not answered early");
      expect(asks).toContain(one.transaction);
      // The next: answered at its broadcast, no answer to its receipt ask yet.
      const two = await b.settleEarly(second!, Promise.resolve(true), () => Promise.resolve(true));
      if (!("pending" in two)) throw new Error("not answered early");
      expect(asks).not.toContain(two.transaction);
      await mine();
      expect(await one.final).toEqual({ ok: true, transaction: one.transaction });
      expect(await two.final).toEqual({ ok: true, transaction: two.transaction });
      expect(asks).toContain(two.transaction);
    } finally {
      await rpc.request({ method: "evm_setAutomine" as never, params: [true] as never });
    }
    // Mining at once again: this batch is answered early (the last first ask found none), its
    // first ask finds it mined, so the one after waits for that ask and is answered final.
    const three = await b.settleEarly(third!, Promise.resolve(true), () => Promise.resolve(true));
    expect("pending" in three ? await three.final : three).toMatchObject({ ok: true });
    const [fourth] = await funded(1, payTo);
    expect(await b.settleEarly(fourth!, Promise.resolve(true), () => Promise.resolve(true))).toEqual({ ok: true, transaction: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    expect(await chain.balanceOf(payTo)).toBe(4n * VALUE);
  });

  it("a chain that mines at once answers an early payment final: its receipt was there at the first ask", async () => {
    const payTo = newAddress();
    const [a] = await funded(1, payTo);
    const outcome = await batcher({ maxSize: 1 }).settleEarly(a!, Promise.resolve(true), () => Promise.resolve(true));
    expect(outcome).toEqual({ ok: true, transaction: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
  });

  it("an early payment whose transfer fails in its block (the payer spent the balance first) is answered early, then its final outcome says it failed", async () => {
    const payTo = newAddress();
    const account = await payer(VALUE);
    const a = await authorize(account, payTo);
    await rpc.request({ method: "evm_setAutomine" as never, params: [false] as never });
    try {
      const answered = await batcher({ maxSize: 1, receiptPollMs: 20 }).settleEarly(a, Promise.resolve(true), () => Promise.resolve(true));
      if (!("pending" in answered)) throw new Error("not answered early");
      // The payer moves its whole balance away with a higher tip: mined before the settlement.
      const spender = createWalletClient({ account, chain: chain.chain, transport: http(chain.rpcUrl) });
      await rpc.request({ method: "hardhat_setBalance" as never, params: [account.address, "0x56bc75e2d63100000"] as never });
      await spender.writeContract({
        address: chain.usdc,
        abi: eip3009TokenAbi,
        functionName: "transfer",
        args: [newAddress(), VALUE],
        // Given, not estimated: the node estimates against its pending block, where the settlement already spent the balance.
        gas: 100_000n,
        maxPriorityFeePerGas: 50_000_000_000n,
        maxFeePerGas: 100_000_000_000n,
      });
      await rpc.request({ method: "evm_mine" as never, params: [] as never });
      const final = await answered.final;
      expect(final).toMatchObject({ ok: false, reason: "payment_settlement_failed", transaction: answered.transaction });
      expect(await used(a)).toBe(false);
      expect(await chain.balanceOf(payTo)).toBe(0n);
    } finally {
      await rpc.request({ method: "evm_setAutomine" as never, params: [true] as never });
    }
  });

  it("a chain that cannot be asked: SettlementNotSent, nothing sent", async () => {
    const payTo = newAddress();
    const a = await authorize(await payer(VALUE), payTo);
    const away = baseBatchChain(baseSigner({ rpcUrl: CLOSED_PORT, facilitatorKey: chain.accounts[0] as Hex, verifier: "native" }), baseReader({ rpcUrl: CLOSED_PORT }));
    const reports: BatchReport[] = [];
    const before = await txCount(facilitator);
    const err = await batcher({ maxSize: 1 }, away, reports)
      .settle(a)
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(SettlementNotSent);
    expect(err).toMatchObject({ reason: "settlement_not_sent" });
    expect(reports).toEqual([expect.objectContaining({ size: 1, sent: 0, outcome: "not_sent", transaction: null })]);
    expect(await txCount(facilitator)).toBe(before);
    expect(await used(a)).toBe(false);
  });

  it("a send that fails: SettlementUnknown without a hash (the node may have taken it)", async () => {
    const payTo = newAddress();
    const auths = await funded(2, payTo);
    let resyncs = 0;
    const failing: BatchChain = {
      ...real,
      send: () => Promise.reject(new Error("socket hang up")),
      resync: () => {
        resyncs++;
        real.resync();
      },
    };
    const reports: BatchReport[] = [];
    const b = batcher({ maxSize: 2 }, failing, reports);
    const results = await Promise.allSettled(auths.map((a) => b.settle(a)));
    for (const r of results) {
      expect(r.status).toBe("rejected");
      const e = (r as PromiseRejectedResult).reason as unknown;
      expect(e).toBeInstanceOf(SettlementUnknown);
      expect(e).toMatchObject({ reason: "settlement_pending", transaction: null });
    }
    expect(reports.map((r) => r.outcome)).toEqual(["unknown"]);
    // The account's next nonce is asked of the node again.
    expect(resyncs).toBe(1);
    for (const a of auths) expect(await used(a)).toBe(false);
  });

  it("a node that stops answering after the send: SettlementUnknown carrying the hash", async () => {
    const payTo = newAddress();
    const a = await authorize(await payer(VALUE), payTo);
    let asked = 0;
    const deaf: BatchChain = {
      ...real,
      receipt: () => {
        asked++;
        return Promise.reject(new Error("fetch failed"));
      },
    };
    const err = await batcher({ maxSize: 1, receiptTimeoutMs: 10_000, receiptPollMs: 10 }, deaf)
      .settle(a)
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(SettlementUnknown);
    const hash = (err as SettlementUnknown).transaction;
    expect(hash).toMatch(/^0x[0-9a-f]{64}$/);
    // Given up after a few failed lookups, not after the whole timeout.
    expect(asked).toBe(3);
    // It was mined all the same (automine): reconciliation would find it.
    expect((await rpc.getTransactionReceipt({ hash: hash! })).status).toBe("success");
    expect(await used(a)).toBe(true);
  });

  it("gas: a batch of 16 costs less per payment than one transferWithAuthorization", async () => {
    const payTo = newAddress();
    // payTo already holds USDC in both cases; each payer is fresh.
    await chain.mint(payTo, 1n);
    const single = await transferDirectly(await authorize(await payer(VALUE), payTo));
    const auths = await funded(16, payTo);
    const reports: BatchReport[] = [];
    const b = batcher({ maxSize: 16, windowMs: 5000 }, real, reports);
    const outcomes = await Promise.all(auths.map((a) => b.settle(a)));
    const hash = ok(outcomes[0]!);
    for (const o of outcomes) expect(ok(o)).toBe(hash);
    const batch = await rpc.getTransactionReceipt({ hash });
    expect(reports).toEqual([expect.objectContaining({ size: 16, transferred: 16, outcome: "mined", gasUsed: batch.gasUsed })]);
    expect(await chain.balanceOf(payTo)).toBe(1n + 17n * VALUE);
    const perPayment = batch.gasUsed / 16n;
    console.log(JSON.stringify({ figure: "settlement_gas", batchSize: 16, batchGas: Number(batch.gasUsed), perPayment: Number(perPayment), single: Number(single.gasUsed), saving: Number(single.gasUsed - perPayment) }));
    expect(perPayment).toBeLessThan(single.gasUsed);
  });
});

const authorizationUsed = parseAbiItem("event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)");
