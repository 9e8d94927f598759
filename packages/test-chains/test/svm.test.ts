import {
  createKeyPairSignerFromBytes,
  createSolanaRpc,
  generateKeyPairSigner,
  getBase58Encoder,
  mainnet,
  signature as toSignature,
  type KeyPairSigner,
} from "@solana/kit";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { toFacilitatorSvmSigner, type FacilitatorSvmSigner } from "@x402/svm";
import { ExactSvmScheme as ExactSvmClient } from "@x402/svm/exact/client";
import { ExactSvmScheme as ExactSvmFacilitator } from "@x402/svm/exact/facilitator";
import { ExactSvmScheme as ExactSvmServer } from "@x402/svm/exact/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAINNET_GENESIS_HASH, SOLANA_MAINNET_NETWORK, SOLANA_USDC_MINT, startSvmChain, type SvmChain } from "../src/svm/index.js";

const PRICE = 5000n;
/** The exact client's transaction: compute unit limit 20,000 at 1 micro-lamport per unit. */
const PRIORITY_FEE = 1n;
const LAMPORTS_PER_SIGNATURE = 5000n;
/** spl-token's TokenError::InsufficientFunds. */
const TOKEN_INSUFFICIENT_FUNDS = 1;

let chain: SvmChain;
let rpc: ReturnType<typeof createSolanaRpc>;
let facilitatorSigner: FacilitatorSvmSigner;
let feePayer: KeyPairSigner;
let payer: KeyPairSigner;
let payTo: KeyPairSigner;
let poorPayer: KeyPairSigner;
let startupMs: number;

beforeAll(async () => {
  const started = performance.now();
  chain = await startSvmChain({ accounts: 4 });
  startupMs = performance.now() - started;
  console.info(`SVM chain started in ${startupMs.toFixed(0)} ms at ${chain.rpcUrl}`);
  rpc = createSolanaRpc(mainnet(chain.rpcUrl));
  [feePayer, payer, payTo, poorPayer] = await Promise.all(
    chain.accounts.map((account) => createKeyPairSignerFromBytes(account.secretKey)),
  ) as [KeyPairSigner, KeyPairSigner, KeyPairSigner, KeyPairSigner];
  facilitatorSigner = toFacilitatorSvmSigner(feePayer, { defaultRpcUrl: chain.rpcUrl });
  await chain.mint(payer.address, 1_000_000n);
  await chain.mint(poorPayer.address, PRICE - 1n);
  // The exact scheme pays into the payee's existing token account: create it.
  await chain.mint(payTo.address, 0n);
});

afterAll(async () => {
  await chain?.stop();
});

function baseRequirements(): PaymentRequirements {
  return {
    scheme: "exact",
    network: SOLANA_MAINNET_NETWORK,
    asset: SOLANA_USDC_MINT,
    amount: PRICE.toString(),
    payTo: payTo.address,
    maxTimeoutSeconds: 60,
    extra: { feePayer: feePayer.address },
  };
}

async function pay(from: KeyPairSigner, requirements: PaymentRequirements): Promise<PaymentPayload> {
  const created = await new ExactSvmClient(from, { rpcUrl: chain.rpcUrl }).createPaymentPayload(2, requirements);
  return { x402Version: 2, accepted: requirements, payload: created.payload };
}

interface RawResponse {
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

/** A JSON-RPC call without kit, to see the exact response a client gets. */
async function rawRpc(method: string, params: unknown[]): Promise<RawResponse> {
  const response = await fetch(chain.rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  return (await response.json()) as RawResponse;
}

describe("local Solana chain", () => {
  it("starts quickly, as mainnet with USDC's mint at its address", async () => {
    expect(startupMs).toBeLessThan(5000);
    expect(await rpc.getGenesisHash().send()).toBe(MAINNET_GENESIS_HASH);
    expect(SOLANA_MAINNET_NETWORK).toBe(`solana:${MAINNET_GENESIS_HASH.slice(0, 32)}`);
    const mint = await rpc.getAccountInfo(SOLANA_USDC_MINT, { encoding: "jsonParsed" }).send();
    expect(mint.value?.owner).toBe("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA");
    expect(mint.value?.data).toMatchObject({
      program: "spl-token",
      parsed: { type: "mint", info: { decimals: 6, isInitialized: true, mintAuthority: chain.mintAuthority.address } },
    });
    expect((await rpc.getBalance(feePayer.address).send()).value).toBe(100_000_000_000n);
  });

  it("mints USDC into associated token accounts", async () => {
    expect(await chain.balanceOf(payer.address)).toBe(1_000_000n);
    const ata = await chain.tokenAccountOf(payer.address);
    const balance = await rpc.getTokenAccountBalance(ata).send();
    expect(balance.value).toMatchObject({ amount: "1000000", decimals: 6, uiAmountString: "1" });
  });

  it("answers JSON-RPC errors like a node", async () => {
    expect((await rawRpc("noSuchMethod", [])).error).toEqual({ code: -32601, message: "Method not found" });
    expect((await rawRpc("getBalance", ["not-an-address"])).error?.code).toBe(-32602);
    const garbage = await rawRpc("sendTransaction", [Buffer.from("garbage").toString("base64"), { encoding: "base64" }]);
    expect(garbage.error?.code).toBe(-32602);
  });
});

describe("simulateTransaction", () => {
  /** kit's compute-unit estimate (used by the legacy x402 client) simulates with this placeholder. */
  const PLACEHOLDER_BLOCKHASH = "11111111111111111111111111111111";

  it("replaces an unknown blockhash on request, as compute-unit estimates need", async () => {
    const recentBlockhash = (await rpc.getLatestBlockhash().send()).value.blockhash;
    const paid = await pay(payer, { ...baseRequirements(), extra: { feePayer: feePayer.address, recentBlockhash } });
    const wire = Buffer.from((paid.payload as { transaction: string }).transaction, "base64");
    const at = wire.indexOf(Buffer.from(getBase58Encoder().encode(recentBlockhash)));
    expect(at).toBeGreaterThan(0);
    wire.set(getBase58Encoder().encode(PLACEHOLDER_BLOCKHASH), at);
    const placeholder = wire.toString("base64");

    const plain = await rawRpc("simulateTransaction", [placeholder, { encoding: "base64" }]);
    expect(plain.result).toMatchObject({ value: { err: "BlockhashNotFound", replacementBlockhash: null } });

    const replaced = await rawRpc("simulateTransaction", [placeholder, { encoding: "base64", replaceRecentBlockhash: true }]);
    const latest = (await rpc.getLatestBlockhash().send()).value;
    expect(replaced.result).toMatchObject({
      value: {
        err: null,
        replacementBlockhash: { blockhash: latest.blockhash, lastValidBlockHeight: Number(latest.lastValidBlockHeight) },
        unitsConsumed: expect.any(Number),
      },
    });

    const both = await rawRpc("simulateTransaction", [placeholder, { encoding: "base64", replaceRecentBlockhash: true, sigVerify: true }]);
    expect(both.error).toEqual({ code: -32602, message: "sigVerify may not be used with replaceRecentBlockhash" });
  });
});

describe("x402 exact payments on the local Solana chain", () => {
  let facilitator: ExactSvmFacilitator;
  let requirements: PaymentRequirements;
  let payload: PaymentPayload;
  let settledSignature: string;

  beforeAll(() => {
    facilitator = new ExactSvmFacilitator(facilitatorSigner);
  });

  it("the exact client pays, the exact facilitator verifies and settles", async () => {
    // What a resource server puts in its 402: the facilitator's supported extra (feePayer),
    // enhanced by the exact server scheme with a recent blockhash from the chain.
    const supportedKind = {
      x402Version: 2,
      scheme: "exact",
      network: SOLANA_MAINNET_NETWORK,
      extra: facilitator.getExtra(SOLANA_MAINNET_NETWORK),
    } as const;
    requirements = await new ExactSvmServer({ rpcUrl: chain.rpcUrl }).enhancePaymentRequirements(
      { ...baseRequirements(), extra: {} },
      supportedKind,
      [],
    );
    expect(requirements.extra).toEqual({
      feePayer: feePayer.address,
      recentBlockhash: expect.any(String),
      lastValidBlockHeight: expect.stringMatching(/^\d+$/),
    });
    payload = await pay(payer, requirements);

    const before = {
      payer: await chain.balanceOf(payer.address),
      payTo: await chain.balanceOf(payTo.address),
      feePayerLamports: await chain.lamportsOf(feePayer.address),
      payerLamports: await chain.lamportsOf(payer.address),
    };

    let started = performance.now();
    const verified = await facilitator.verify(payload, requirements);
    const verifyMs = performance.now() - started;
    expect(verified).toEqual({ isValid: true, invalidReason: undefined, payer: payer.address });

    started = performance.now();
    const settled = await facilitator.settle(payload, requirements);
    const settleMs = performance.now() - started;
    console.info(`SVM exact: verify ${verifyMs.toFixed(1)} ms, settle ${settleMs.toFixed(1)} ms`);
    expect(settled).toMatchObject({ success: true, network: SOLANA_MAINNET_NETWORK, payer: payer.address });
    expect(settled.transaction).toMatch(/^[1-9A-HJ-NP-Za-km-z]{86,88}$/);
    settledSignature = settled.transaction;

    expect(await chain.balanceOf(payTo.address)).toBe(before.payTo + PRICE);
    expect(await chain.balanceOf(payer.address)).toBe(before.payer - PRICE);
    // The facilitator sponsors the fee: two signatures plus the priority fee; the payer pays none.
    const fee = 2n * LAMPORTS_PER_SIGNATURE + PRIORITY_FEE;
    expect(await chain.lamportsOf(feePayer.address)).toBe(before.feePayerLamports - fee);
    expect(await chain.lamportsOf(payer.address)).toBe(before.payerLamports);

    const [status] = (await rpc.getSignatureStatuses([toSignature(settledSignature)]).send()).value;
    expect(status).toMatchObject({ err: null, confirmationStatus: "finalized" });
    const tx = await rpc
      .getTransaction(toSignature(settledSignature), { encoding: "json", maxSupportedTransactionVersion: 0 })
      .send();
    expect(tx?.meta?.fee).toBe(fee);
    expect(tx?.meta?.err).toBeNull();
    expect(tx?.transaction.message.accountKeys[0]).toBe(feePayer.address);
    expect(tx?.meta?.postTokenBalances?.find((b) => b.owner === payTo.address)?.uiTokenAmount.amount).toBe(
      (before.payTo + PRICE).toString(),
    );
  });

  it("refuses to settle the same payload twice", async () => {
    expect(settledSignature).toBeDefined();
    const before = { payer: await chain.balanceOf(payer.address), payTo: await chain.balanceOf(payTo.address) };

    // The facilitator that settled it remembers it.
    expect(await facilitator.settle(payload, requirements)).toMatchObject({
      success: false,
      errorReason: "duplicate_settlement",
    });

    // A facilitator without that memory (another replica, a restart) is refused by the chain:
    // the simulation reports the transaction as already processed.
    const fresh = new ExactSvmFacilitator(facilitatorSigner);
    const verified = await fresh.verify(payload, requirements);
    expect(verified).toMatchObject({
      isValid: false,
      invalidReason: "invalid_exact_svm_transaction_simulation_failed",
      invalidMessage: 'Simulation failed: "AlreadyProcessed"',
    });
    const settled = await fresh.settle(payload, requirements);
    expect(settled).toMatchObject({ success: false, errorReason: "invalid_exact_svm_transaction_simulation_failed" });

    // The signed transaction itself, sent again with preflight, is refused as a node refuses it.
    const landed = await rawRpc("getTransaction", [settledSignature, { encoding: "base64", maxSupportedTransactionVersion: 0 }]);
    const [wire] = (landed.result as { transaction: [string, string] }).transaction;
    const resent = await rawRpc("sendTransaction", [wire, { encoding: "base64" }]);
    expect(resent.error).toMatchObject({
      code: -32002,
      message: "Transaction simulation failed: This transaction has already been processed",
      data: { err: "AlreadyProcessed", logs: [] },
    });

    expect(await chain.balanceOf(payer.address)).toBe(before.payer);
    expect(await chain.balanceOf(payTo.address)).toBe(before.payTo);
  });

  it("finds a payer without enough USDC invalid", async () => {
    const short = await pay(poorPayer, baseRequirements());
    const verified = await facilitator.verify(short, baseRequirements());
    // kit reads every JSON integer as a bigint, and the facilitator prints bigints as strings.
    expect(verified).toEqual({
      isValid: false,
      invalidReason: "invalid_exact_svm_transaction_simulation_failed",
      invalidMessage: `Simulation failed: {"InstructionError":["2",{"Custom":"${TOKEN_INSUFFICIENT_FUNDS}"}]}`,
      payer: poorPayer.address,
    });
    const settled = await facilitator.settle(short, baseRequirements());
    expect(settled).toMatchObject({ success: false, errorReason: "invalid_exact_svm_transaction_simulation_failed" });
    expect(await chain.balanceOf(poorPayer.address)).toBe(PRICE - 1n);
  });

  it("finds a payer with no USDC account at all invalid", async () => {
    const nobody = await generateKeyPairSigner();
    const verified = await facilitator.verify(await pay(nobody, baseRequirements()), baseRequirements());
    expect(verified).toEqual({
      isValid: false,
      invalidReason: "invalid_exact_svm_transaction_simulation_failed",
      invalidMessage: 'Simulation failed: {"InstructionError":["2","InvalidAccountData"]}',
      payer: nobody.address,
    });
  });

  it("refuses a payload whose blockhash has expired (after 150 blocks)", async () => {
    const stale = await pay(payer, baseRequirements());
    chain.advanceBlocks(150);
    expect(await facilitator.verify(stale, baseRequirements())).toMatchObject({ isValid: true });
    chain.advanceBlocks(1);
    const verified = await facilitator.verify(stale, baseRequirements());
    expect(verified).toMatchObject({
      isValid: false,
      invalidReason: "invalid_exact_svm_transaction_simulation_failed",
      invalidMessage: 'Simulation failed: "BlockhashNotFound"',
    });
  });
});
