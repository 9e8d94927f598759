import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { startEvmChain, type EvmChain } from "@board/test-chains/evm";
import { encodePaymentRequiredHeader } from "@x402/core/http";
import { toFacilitatorEvmSigner } from "@x402/evm";
import { Challenge, Credential, PaymentRequest, Receipt, Store } from "mppx";
import { Mppx } from "mppx/client";
import { createPublicClient, createWalletClient, getAddress, http, publicActions, keccak256, toHex, type Address, type Hex, type PrivateKeyAccount, type PublicClient } from "viem";
import { generatePrivateKey, nonceManager, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createMppRail,
  toEip3009,
  type MppExpected,
  type MppRail,
  type MppRailConfig,
  type MppVerified,
  UsdcAuthorization,
} from "../../../src/rails/mpp/index.js";
import { eip3009Settlement } from "../../support/eip3009-settlement.js";
import { createUsdcCredential, usdcClientMethod, type UsdcChallenge } from "../../support/mpp-usdc-client.js";
import { baseSigner } from "../../../src/rails/base-exact.js";

const REALM = "board.test";
const PRICES = new Map<string, bigint>([
  ["/api/board/regime", 5000n],
  ["/api/board/names", 10000n],
]);
const REGIME = "/api/board/regime";
const NAMES = "/api/board/names";

let chain: EvmChain;
let client: PublicClient;
let base: string;
let server: Server;
let rail: MppRail;
let railConfig: MppRailConfig;
let payTo: Address;
let facilitator: Address;
let payer: PrivateKeyAccount;
let payer2: PrivateKeyAccount;
let broke: PrivateKeyAccount;
let stranger: PrivateKeyAccount;
const phases = { challenge: [] as number[], verify: [] as number[], settle: [] as number[] };

async function paymentRequired(res: ServerResponse, path: string, problem?: unknown): Promise<void> {
  const amount = PRICES.get(path) as bigint;
  const started = performance.now();
  const challenge = await rail.challenge({ amount, resource: path, description: `One read of ${path}` });
  phases.challenge.push(performance.now() - started);
  // As the gateway's 402: the x402 offer rides along, and mppx's client must still pick our usdc challenge.
  const x402 = encodePaymentRequiredHeader({
    x402Version: 2,
    resource: { url: `${base}${path}`, description: "board read", mimeType: "application/json" },
    accepts: [
      { scheme: "exact", network: "eip155:8453", asset: chain.usdc, amount: amount.toString(), payTo, maxTimeoutSeconds: 300, extra: { name: "USD Coin", version: "2" } },
    ],
  });
  res.writeHead(402, {
    "WWW-Authenticate": challenge,
    "PAYMENT-REQUIRED": x402,
    "Cache-Control": "no-store",
    "Content-Type": problem ? "application/problem+json" : "application/json",
  });
  res.end(JSON.stringify(problem ?? { error: { code: "payment_required" } }));
}

/** The paid read as the gateway runs it: verify+claim, read, settle, 200 with Payment-Receipt. */
async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = new URL(req.url ?? "/", "http://localhost").pathname;
  const amount = PRICES.get(path);
  if (amount === undefined) {
    res.writeHead(404).end();
    return;
  }
  const expected: MppExpected = { amount, resource: path };
  const authorization = req.headers.authorization;
  if (!authorization) return paymentRequired(res, path);
  let started = performance.now();
  const verified = await rail.verify(authorization, expected);
  phases.verify.push(performance.now() - started);
  if (!verified.ok) return paymentRequired(res, path, verified.problem);
  started = performance.now();
  const settled = await rail.settle(authorization, expected);
  phases.settle.push(performance.now() - started);
  if (!settled.ok) return paymentRequired(res, path, settled.problem);
  res.writeHead(200, { "Content-Type": "application/json", "Payment-Receipt": settled.receipt });
  res.end(JSON.stringify({ path, payer: verified.payer, transaction: settled.transaction }));
}

const url = (path: string) => `${base}${path}`;
const mppxFor = (account: PrivateKeyAccount) => Mppx.create({ methods: [usdcClientMethod(account)], polyfill: false });
const balance = (address: Address) => chain.balanceOf(address);

/** A 402's challenge, as mppx's client reads it. */
async function challengeOf(path: string): Promise<UsdcChallenge> {
  const res = await fetch(url(path));
  expect(res.status).toBe(402);
  return Challenge.fromResponse(res) as unknown as UsdcChallenge;
}

async function problemOf(res: Response): Promise<{ code: string; type: string; status: number; challengeId?: string }> {
  expect(res.status).toBe(402);
  expect(res.headers.get("content-type")).toBe("application/problem+json");
  // Every refusal carries a fresh challenge to pay instead.
  expect(() => Challenge.fromResponse(res)).not.toThrow();
  return (await res.json()) as { code: string; type: string; status: number; challengeId?: string };
}

function stats(samples: number[]): string {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
  return `n=${sorted.length} p50=${at(0.5).toFixed(1)}ms p95=${at(0.95).toFixed(1)}ms max=${(sorted.at(-1) ?? NaN).toFixed(1)}ms`;
}

beforeAll(async () => {
  chain = await startEvmChain({ accounts: 5 });
  client = createPublicClient({ chain: chain.chain, transport: http(chain.rpcUrl), pollingInterval: 50 });
  const [facilitatorKey, k1, k2, k3, k4] = chain.accounts as [Hex, Hex, Hex, Hex, Hex];
  payer = privateKeyToAccount(k1);
  payer2 = privateKeyToAccount(k2);
  broke = privateKeyToAccount(k3);
  stranger = privateKeyToAccount(k4);
  payTo = privateKeyToAccount(generatePrivateKey()).address;
  await chain.mint(payer.address, 10_000_000n);
  await chain.mint(payer2.address, 10_000_000n);

  // The payments service's own Base facilitator account (nonce manager, ordered broadcasts).
  const signer = baseSigner({ rpcUrl: chain.rpcUrl, facilitatorKey, verifier: "viem" });
  facilitator = privateKeyToAccount(facilitatorKey).address;
  railConfig = {
    secretKey: randomBytes(32).toString("base64"),
    realm: REALM,
    payTo,
    usdc: chain.usdc,
    chainId: chain.chainId,
    replayStore: Store.memory(),
    ...eip3009Settlement(signer),
  };
  rail = createMppRail(railConfig);

  server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      res.writeHead(500).end(String(err));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 60_000);

afterAll(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  await chain?.stop();
  console.info(`mpp rail phases (server side): challenge ${stats(phases.challenge)}; verify ${stats(phases.verify)}; settle ${stats(phases.settle)}`);
});

describe("MPP usdc rail: mppx's own client pays our 402", () => {
  it("pays a 402 carrying our challenge; payTo grows by the price; the receipt parses with mppx and names the mined transaction", async () => {
    const before = { payTo: await balance(payTo), payer: await balance(payer.address) };
    const mppx = mppxFor(payer);
    const created: string[] = [];
    mppx.onCredentialCreated(({ credential }) => void created.push(credential));

    const res = await mppx.fetch(url(REGIME));
    expect(res.status).toBe(200);
    const body = (await res.json()) as { payer: Address; transaction: Hex };
    expect(created).toHaveLength(1);

    const receipt = Receipt.fromResponse(res);
    expect(receipt).toMatchObject({ method: "usdc", status: "success", reference: body.transaction, network: "eip155:8453" });
    expect(receipt.externalId).toEqual(expect.any(String));
    const mined = await client.getTransactionReceipt({ hash: receipt.reference as Hex });
    expect(mined.status).toBe("success");

    expect(getAddress(body.payer)).toBe(payer.address);
    expect(await balance(payTo)).toBe(before.payTo + 5000n);
    expect(await balance(payer.address)).toBe(before.payer - 5000n);

    // The same credential again: the chain has the authorization as used.
    const replay = await fetch(url(REGIME), { headers: { Authorization: created[0] as string } });
    expect((await problemOf(replay)).code).toBe("payment_already_used");
    expect(await balance(payTo)).toBe(before.payTo + 5000n);
  });

  it("the challenge is mppx's: WWW-Authenticate Payment, method usdc, intent charge, USDC on eip155:8453, scoped to the resource", async () => {
    const challenge = await challengeOf(NAMES);
    expect(challenge).toMatchObject({
      method: "usdc",
      intent: "charge",
      realm: REALM,
      description: `One read of ${NAMES}`,
      request: {
        amount: "10000",
        currency: getAddress(chain.usdc),
        recipient: payTo,
        methodDetails: { chainId: 8453, network: "eip155:8453", decimals: 6, eip712: { name: "USD Coin", version: "2" } },
      },
    });
    // The resource scope rides in `opaque`, which the HMAC covers.
    expect(PaymentRequest.deserialize(challenge.opaque as string)).toEqual({ _mppx_scope: NAMES });
    expect(Challenge.verify(challenge, { secretKey: railConfig.secretKey })).toBe(true);
    // Two 402s for the same route in the same instant still get distinct challenges (the quote id).
    const [a, b] = await Promise.all([rail.challenge({ amount: 5000n, resource: REGIME }), rail.challenge({ amount: 5000n, resource: REGIME })]);
    expect(Challenge.deserialize(a).id).not.toBe(Challenge.deserialize(b).id);
  });

  it("of 8 concurrent requests with one credential exactly one is served and charged: the copies are refused at the claim (the replay store), before any settlement", async () => {
    const before = await balance(payTo);
    const sent = await client.getTransactionCount({ address: facilitator });
    const settleAttempts = phases.settle.length;
    const credential = await mppxFor(payer).createCredential(await fetch(url(REGIME)));
    const responses = await Promise.all(Array.from({ length: 8 }, () => fetch(url(REGIME), { headers: { Authorization: credential } })));
    const served = responses.filter((r) => r.status === 200);
    expect(served).toHaveLength(1);
    for (const refused of responses.filter((r) => r.status !== 200)) expect((await problemOf(refused)).code).toBe("payment_already_used");
    expect(await balance(payTo)).toBe(before + 5000n);
    // The copies were refused at the claim: no settlement was attempted for them, no gas spent.
    expect(phases.settle.length - settleAttempts).toBe(1);
    expect(await client.getTransactionCount({ address: facilitator })).toBe(sent + 1);
  });

  it("pays 10 reads concurrently from two payers: every settlement lands from one facilitator account", async () => {
    const before = await balance(payTo);
    const clients = [mppxFor(payer), mppxFor(payer2)];
    const started = performance.now();
    const responses = await Promise.all(Array.from({ length: 10 }, (_, i) => (clients[i % 2] as (typeof clients)[number]).fetch(url(REGIME))));
    const elapsed = performance.now() - started;
    expect(responses.map((r) => r.status)).toEqual(Array(10).fill(200));
    const references = new Set(responses.map((r) => Receipt.fromResponse(r).reference));
    expect(references.size).toBe(10);
    expect(await balance(payTo)).toBe(before + 50_000n);
    console.info(`mpp rail: 10 concurrent paid reads (402 + sign + verify + settle) in ${elapsed.toFixed(0)} ms`);
  }, 30_000);

  it("a payer without funds gets payment_insufficient_funds as problem+json, and nothing moves", async () => {
    const before = await balance(payTo);
    const res = await mppxFor(broke).fetch(url(REGIME));
    const problem = await problemOf(res);
    expect(problem).toMatchObject({ code: "payment_insufficient_funds", status: 402, type: "https://paymentauth.org/problems/verification-failed" });
    expect(await balance(payTo)).toBe(before);
  });

  it("a credential for another resource is refused as payment_route_mismatch, for another price as payment_amount_mismatch", async () => {
    const before = await balance(payTo);
    const forRegime = await mppxFor(payer).createCredential(await fetch(url(REGIME)));
    const elsewhere = await fetch(url(NAMES), { headers: { Authorization: forRegime } });
    expect((await problemOf(elsewhere)).code).toBe("payment_route_mismatch");

    // The route's price changed between the 402 and the payment.
    PRICES.set(REGIME, 7000n);
    try {
      const repriced = await fetch(url(REGIME), { headers: { Authorization: forRegime } });
      expect((await problemOf(repriced)).code).toBe("payment_amount_mismatch");
    } finally {
      PRICES.set(REGIME, 5000n);
    }
    expect(await balance(payTo)).toBe(before);
    // Refused credentials are not claimed: the same one still pays its own route.
    expect((await fetch(url(REGIME), { headers: { Authorization: forRegime } })).status).toBe(200);
  });
});

describe("MPP usdc rail: verify, settle and release", () => {
  const regime: MppExpected = { amount: 5000n, resource: REGIME };
  const freshChallenge = async (r: MppRail = rail, expected: MppExpected = regime) =>
    Challenge.deserialize(await r.challenge(expected)) as unknown as UsdcChallenge;

  it("verify claims the challenge id; a second verify is payment_already_used until release", async () => {
    const credential = await createUsdcCredential(payer, await freshChallenge());
    const first = await rail.verify(credential, regime);
    expect(first).toMatchObject({ ok: true, payer: payer.address });
    const key = (first as MppVerified).key;
    expect(await rail.verify(credential, regime)).toMatchObject({ ok: false, reason: "payment_already_used" });
    await rail.release(key);
    expect(await rail.verify(credential, regime)).toMatchObject({ ok: true, key });
  });

  it("refuses authorizations that deviate from their challenge, each with its reason", async () => {
    const cases: [string, Promise<string>, string][] = [
      ["another recipient", freshChallenge().then((c) => createUsdcCredential(payer, c, { to: stranger.address })), "payment_pay_to_mismatch"],
      ["another amount", freshChallenge().then((c) => createUsdcCredential(payer, c, { value: 4999n })), "payment_amount_mismatch"],
      ["a nonce of another challenge", freshChallenge().then((c) => createUsdcCredential(payer, c, { nonce: keccak256(toHex("other")) })), "payment_invalid_header"],
      ["a signature by another key", freshChallenge().then((c) => createUsdcCredential(payer, c, { signer: stranger })), "payment_invalid_signature"],
      ["not valid yet", freshChallenge().then((c) => createUsdcCredential(payer, c, { validAfter: BigInt(Math.floor(Date.now() / 1000) + 60) })), "payment_expired"],
      ["a tampered challenge (amount lowered)", freshChallenge().then((c) => createUsdcCredential(payer, { ...c, request: { ...c.request, amount: "1" } })), "payment_invalid_header"],
      ["another method", freshChallenge().then(async (c) => Credential.serialize({ ...Credential.deserialize(await createUsdcCredential(payer, c)), challenge: { ...c, method: "evm" } })), "payment_unsupported_scheme"],
      ["a bearer token", Promise.resolve("Bearer abc"), "payment_invalid_header"],
      ["garbage", Promise.resolve("Payment !!!not-base64!!!"), "payment_invalid_header"],
    ];
    for (const [what, credential, reason] of cases) {
      const result = await rail.verify(await credential, regime);
      expect(result, what).toMatchObject({ ok: false, reason, problem: { code: reason, status: 402 } });
    }
  });

  it("a challenge issued for another token or chain is refused as payment_asset_mismatch / payment_network_mismatch", async () => {
    const otherToken = createMppRail({ ...railConfig, usdc: "0x036CbD53842c5426634e7929541eC2318f3dCF7e" });
    const otherChain = createMppRail({ ...railConfig, chainId: 84532 });
    const byToken = await createUsdcCredential(payer, await freshChallenge(otherToken));
    const byChain = await createUsdcCredential(payer, await freshChallenge(otherChain));
    expect(await rail.verify(byToken, regime)).toMatchObject({ ok: false, reason: "payment_asset_mismatch" });
    expect(await rail.verify(byChain, regime)).toMatchObject({ ok: false, reason: "payment_network_mismatch" });
  });

  it("an expired challenge is refused as payment_expired; one about to lapse too (no time left to settle)", async () => {
    const shortLived = createMppRail({ ...railConfig, challengeTtlSeconds: 1, settleMarginSeconds: 0 });
    const [a, b] = await Promise.all([freshChallenge(shortLived), freshChallenge(shortLived)]);
    // The early one's authorization outlives its challenge, so only the challenge's expiry can refuse it (validBefore is whole seconds).
    const [early, late] = await Promise.all([
      createUsdcCredential(payer, a, { validBefore: BigInt(Math.floor(Date.now() / 1000) + 60) }),
      createUsdcCredential(payer, b),
    ]);
    expect(await shortLived.verify(early, regime)).toMatchObject({ ok: true });
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect(await shortLived.verify(late, regime)).toMatchObject({ ok: false, reason: "payment_expired", problem: { type: "https://paymentauth.org/problems/payment-expired" } });

    const lapsing = createMppRail({ ...railConfig, challengeTtlSeconds: 3 });
    const soon = await createUsdcCredential(payer, await freshChallenge(lapsing));
    expect(await lapsing.verify(soon, regime)).toMatchObject({ ok: false, reason: "payment_expired" });
  });

  it("settle is definite when it refuses: funds spent between claim and settle give payment_insufficient_funds and no transaction", async () => {
    const spender = privateKeyToAccount(generatePrivateKey());
    await chain.mint(spender.address, 5000n);
    const [one, two] = await Promise.all([freshChallenge(), freshChallenge()]);
    const [c1, c2] = await Promise.all([createUsdcCredential(spender, one), createUsdcCredential(spender, two)]);
    expect(await rail.verify(c1, regime)).toMatchObject({ ok: true });
    expect(await rail.verify(c2, regime)).toMatchObject({ ok: true });
    expect(await rail.settle(c1, regime)).toMatchObject({ ok: true });
    expect(await rail.settle(c2, regime)).toMatchObject({ ok: false, reason: "payment_insufficient_funds" });
    expect(await balance(spender.address)).toBe(0n);
  });

  it("the settlement itself refuses an authorization the chain has used (simulated first: no gas, no nonce spent)", async () => {
    const { verifyAuthorization, settleAuthorization } = railConfig;
    const credential = Credential.deserialize(await createUsdcCredential(payer, await freshChallenge()));
    const authorization = toEip3009(UsdcAuthorization.parse(credential.payload));
    const target = { token: chain.usdc, chainId: chain.chainId };
    expect(await verifyAuthorization(authorization, target)).toEqual({ ok: true });
    const first = await settleAuthorization(authorization, target);
    expect(first).toMatchObject({ ok: true });
    expect(await verifyAuthorization(authorization, target)).toMatchObject({ ok: false, reason: "payment_already_used" });
    expect(await settleAuthorization(authorization, target)).toMatchObject({ ok: false, reason: "payment_already_used" });
    expect((await settleAuthorization(authorization, target)) as { transaction?: Hex }).not.toHaveProperty("transaction");
  });

  it("when the chain cannot be asked, verify throws (the caller answers 503) and claims nothing", async () => {
    const unreachable = createMppRail({
      ...railConfig,
      ...eip3009Settlement(baseSigner({ rpcUrl: "http://127.0.0.1:9/", facilitatorKey: generatePrivateKey(), verifier: "viem" })),
    });
    const credential = await createUsdcCredential(payer, await freshChallenge());
    await expect(unreachable.verify(credential, regime)).rejects.toThrow();
    // Same secret and replay store: the credential is still unclaimed.
    expect(await rail.verify(credential, regime)).toMatchObject({ ok: true });
  });

  it("settles through x402's FacilitatorEvmSigner too, so the payments service can share its Base account and broadcast queue", async () => {
    const account = privateKeyToAccount(chain.accounts[0] as Hex, { nonceManager });
    const wallet = createWalletClient({ account, chain: chain.chain, transport: http(chain.rpcUrl), pollingInterval: 50 }).extend(publicActions);
    const x402Signer = toFacilitatorEvmSigner({ ...wallet, address: account.address } as unknown as Parameters<typeof toFacilitatorEvmSigner>[0]);
    const shared = createMppRail({ ...railConfig, ...eip3009Settlement(x402Signer) });
    const before = await balance(payTo);
    const credential = await createUsdcCredential(payer, await freshChallenge(shared));
    expect(await shared.verify(credential, regime)).toMatchObject({ ok: true });
    const settled = await shared.settle(credential, regime);
    expect(settled).toMatchObject({ ok: true });
    expect(await balance(payTo)).toBe(before + 5000n);
  });

  it("receipt() gives the Payment-Receipt for a settlement found elsewhere (reconciliation)", () => {
    const header = rail.receipt({ externalId: "q1" }, `0x${"ab".repeat(32)}`);
    expect(Receipt.deserialize(header)).toMatchObject({ method: "usdc", status: "success", reference: `0x${"ab".repeat(32)}`, externalId: "q1", network: "eip155:8453" });
  });

  it("latency: 20 sequential paid reads through mppx's client", async () => {
    const mppx = mppxFor(payer2);
    const samples: number[] = [];
    for (let i = 0; i < 20; i++) {
      const started = performance.now();
      const res = await mppx.fetch(url(REGIME));
      samples.push(performance.now() - started);
      expect(res.status).toBe(200);
    }
    console.info(`mpp rail: paid read round trip (402, sign, verify+claim, settle, 200) ${stats(samples)}`);
  }, 60_000);
});
