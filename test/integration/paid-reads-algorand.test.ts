import { performance } from "node:perf_hooks";
import { paymentsClaim } from "@board/proto";
import { request } from "@board/service-kit";
import { startAlgodStandIn, type AlgodStandIn, type AlgodStandInAccount } from "@board/test-chains/avm";
import { toClientAvmSigner } from "@x402/avm";
import { ExactAvmScheme } from "@x402/avm/exact/client";
import { decodePaymentRequiredHeader, decodePaymentResponseHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import type { PaymentPayload, PaymentRequired } from "@x402/core/types";
import { wrapFetchWithPayment, x402Client } from "@x402/fetch";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { algorandExactRail, paymentGroup } from "../../services/payments/src/rails/algorand-exact.js";
import { LocalFacilitator } from "../../services/payments/src/x402/local-facilitator.js";
import { expectRedelivered, purchases, refusal, Stack } from "./harness.js";

const stack = new Stack();
let algod: AlgodStandIn;
let facilitator: AlgodStandInAccount;
let payTo: string;
let nextPayer = 2;

const rail = (algodToken = algod.token) => algorandExactRail({ payTo, algodUrl: algod.url, algodToken, facilitatorMnemonic: facilitator.mnemonic });
/** Payments configured through env, as in production. */
const startPayments = (extra: Record<string, string> = {}, algodToken = algod.token) =>
  stack.startPayments({
    PUBLIC_BASE_URL: "http://127.0.0.1:8080",
    PAY_TO_ALGORAND: payTo,
    ALGOD_URL: algod.url,
    ALGOD_TOKEN: algodToken,
    ALGORAND_FACILITATOR_MNEMONIC: facilitator.mnemonic,
    ...extra,
  });

beforeAll(async () => {
  algod = await startAlgodStandIn({ accounts: 24 });
  [facilitator] = algod.accounts as [AlgodStandInAccount];
  payTo = algod.accounts[1]!.address;
  algod.optIn(payTo);
  await stack.start();
  await stack.startBoard();
  await stack.publishTwoDays();
  await startPayments();
  await stack.untilServing();
}, 60_000);
afterAll(async () => {
  await stack.stop();
  await algod?.stop();
});

/** A fresh account of the stand-in (10 ALGO), opted in to USDC and holding `usdc` unless told otherwise. */
function payer(usdc: bigint, opts: { optIn?: boolean } = {}): AlgodStandInAccount {
  const account = algod.accounts[nextPayer++];
  if (!account) throw new Error("the stand-in has no unused account left: raise `accounts`");
  if (opts.optIn !== false) algod.optIn(account.address);
  if (usdc > 0n) algod.mintUsdc(account.address, usdc);
  return account;
}

/**
 * @x402/avm's client scheme. Its default spend controls need no allowedAssets entry: USDC's ASA
 * is one of the scheme's default assets. A client signing for tampered terms turns them off.
 */
const avmClient = (account: AlgodStandInAccount, spendControls = true) =>
  x402Client
    .fromConfig({ schemes: [], ...(spendControls ? {} : { spendControls: false }) })
    .register("algorand:*", new ExactAvmScheme(toClientAvmSigner(account.privateKeyBase64), { algodUrl: algod.url, algodToken: algod.token }));

async function offersOf(path: string): Promise<PaymentRequired> {
  const res = await fetch(`${stack.base}${path}`);
  expect(res.status).toBe(402);
  return decodePaymentRequiredHeader(res.headers.get("payment-required")!);
}

/** A payment signed by @x402/avm's own client for the (possibly altered) Algorand offer of `path`. */
async function signedPayment(account: AlgodStandInAccount, path: string, alter?: (pr: PaymentRequired) => void, spendControls = true): Promise<string> {
  const pr = await offersOf(path);
  pr.accepts = pr.accepts.filter((a) => a.network === algod.network);
  alter?.(pr);
  return encodePaymentSignatureHeader(await avmClient(account, spendControls).createPaymentPayload(pr));
}

const decode = (payment: string) => JSON.parse(Buffer.from(payment, "base64").toString()) as PaymentPayload;


const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

describe("paid reads on Algorand (algod stand-in, mainnet USDC ASA)", () => {
  it("offers Algorand USDC with our facilitator as fee payer, in v2 only", async () => {
    const pr = await offersOf("/api/board/regime");
    expect(pr.accepts).toHaveLength(1);
    expect(pr.accepts[0]).toMatchObject({ scheme: "exact", network: algod.network, amount: "5000", payTo, asset: String(algod.usdcAssetId) });
    expect(pr.accepts[0]!.extra).toMatchObject({ feePayer: facilitator.address });
    // x402-fetch 1.x refuses a 402 body naming a network it does not know.
    const body = (await (await fetch(`${stack.base}/api/board/regime`)).json()) as { accepts: unknown[] };
    expect(body.accepts).toEqual([]);
  });

  it("registers the facilitator scheme under both spellings of the network", async () => {
    const ours = new LocalFacilitator();
    rail().register!(ours.facilitator);
    const kinds = (await ours.getSupported()).kinds.map((k) => k.network);
    expect(kinds.sort()).toEqual([algod.network, algod.networkFull].sort());
  });

  it("@x402/fetch pays and reads; payTo gains exactly the price; the facilitator pays the fees; the group is on chain", async () => {
    const account = payer(100_000n);
    const before = { payTo: algod.balanceOf(payTo), payerAlgos: algod.microAlgosOf(account.address), feePayer: algod.microAlgosOf(facilitator.address), groups: algod.submitted().length };
    let sent: string | undefined;
    const recording: typeof fetch = (input, init) => {
      sent ??= new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined)).get("payment-signature") ?? undefined;
      return fetch(input, init);
    };
    const started = performance.now();
    const res = await wrapFetchWithPayment(recording, avmClient(account))(`${stack.base}/api/board/regime`);
    const elapsed = performance.now() - started;
    expect(res.status).toBe(200);
    expect(await res.json()).toBeTruthy();
    const receipt = decodePaymentResponseHeader(res.headers.get("payment-response")!);
    expect(receipt).toMatchObject({ success: true, network: algod.network, payer: account.address });
    expect(receipt.transaction).toMatch(/^[A-Z2-7]{52}$/);

    expect(algod.balanceOf(payTo)).toBe(before.payTo + 5_000n);
    expect(algod.balanceOf(account.address)).toBe(95_000n);
    expect(algod.microAlgosOf(account.address)).toBe(before.payerAlgos);
    // Two transactions at the minimum fee (1,000 µAlgo each), pooled on the fee payer's.
    expect(algod.microAlgosOf(facilitator.address)).toBe(before.feePayer - 2_000n);

    const groups = algod.submitted();
    expect(groups).toHaveLength(before.groups + 1);
    const group = paymentGroup(decode(sent!))!;
    expect(groups.at(-1)).toMatchObject({ groupId: group.groupId });
    expect(groups.at(-1)!.txIds).toContain(receipt.transaction);
    console.info(`algorand: paid read through @x402/fetch (402, sign, pay, settle) ${elapsed.toFixed(1)} ms`);
  });

  it("a pre-signed payment buys a read in tens of milliseconds (verify by simulation, claim, read, settle)", async () => {
    const account = payer(1_000_000n);
    const times: number[] = [];
    for (let i = 0; i < 10; i++) {
      const payment = await signedPayment(account, "/api/board/regime");
      const started = performance.now();
      const res = await stack.paidGet("/api/board/regime", payment);
      times.push(performance.now() - started);
      expect(res.status).toBe(200);
    }
    expect(algod.balanceOf(account.address)).toBe(1_000_000n - 10n * 5_000n);
    console.info(`algorand: paid read with a pre-signed payment, median ${median(times).toFixed(1)} ms, max ${Math.max(...times).toFixed(1)} ms (n=10)`);
  });

  it("a payload carrying the network's full genesis-hash spelling is accepted and settled as well", async () => {
    const account = payer(10_000n);
    const before = algod.balanceOf(payTo);
    const payment = await signedPayment(account, "/api/board/regime", (pr) => void (pr.accepts[0]!.network = algod.networkFull));
    expect(decode(payment).accepted.network).toBe(algod.networkFull);
    const res = await stack.paidGet("/api/board/regime", payment);
    expect(res.status).toBe(200);
    expect(decodePaymentResponseHeader(res.headers.get("payment-response")!)).toMatchObject({ success: true });
    expect(algod.balanceOf(payTo)).toBe(before + 5_000n);
  });
});

describe("single use and refusals", () => {
  it("a payment buys one read: the same payment again is delivered again (Payment-Redelivery), never charged twice", async () => {
    const account = payer(100_000n);
    const payment = await signedPayment(account, "/api/board/regime");
    const before = { payTo: algod.balanceOf(payTo), groups: algod.submitted().length };
    expect((await stack.paidGet("/api/board/regime", payment)).status).toBe(200);
    await expectRedelivered(await stack.paidGet("/api/board/regime", payment), 1);
    await expectRedelivered(await stack.paidGet("/api/board/regime", payment, "x-payment"), 2);
    expect(algod.balanceOf(payTo)).toBe(before.payTo + 5_000n);
    expect(algod.submitted()).toHaveLength(before.groups + 1);
  });

  it("the chain refuses a group already settled: our facilitator names it already used", async () => {
    const account = payer(100_000n);
    const payment = await signedPayment(account, "/api/board/regime");
    expect((await stack.paidGet("/api/board/regime", payment)).status).toBe(200);
    // Past the claims table, straight to the facilitator: algod's own refusal, renamed by the rail.
    const ours = new LocalFacilitator();
    const r = rail();
    r.register!(ours.facilitator);
    const verified = await r.facilitator(ours).verify(decode(payment), decode(payment).accepted);
    expect(verified).toMatchObject({ isValid: false, invalidReason: "already_used" });
    expect(verified.invalidMessage).toMatch(/transaction already in ledger/);
  });

  // As on Base: a copy that arrives once the first has settled is delivered the same read again
  // (at most REDELIVERY_MAX times, then refused as exhausted); one still in flight is refused as used.
  it("10 concurrent identical payments: exactly one is settled and charged; the others are refused or, once it settled, delivered the same read again", async () => {
    const account = payer(100_000n);
    const payment = await signedPayment(account, "/api/board/movers");
    const before = { payTo: algod.balanceOf(payTo), groups: algod.submitted().length };
    const results = await Promise.all(Array.from({ length: 10 }, () => stack.paidGet("/api/board/movers", payment)));
    expect(purchases(results)).toHaveLength(1);
    for (const r of results.filter((r) => r.status !== 200)) expect(["payment_already_used", "payment_redelivery_exhausted"]).toContain(await refusal(r));
    expect(algod.balanceOf(payTo)).toBe(before.payTo + 5_000n);
    expect(algod.submitted()).toHaveLength(before.groups + 1);
  });

  it("refuses a payer without the USDC, or not holding USDC at all, as insufficient funds", async () => {
    const before = algod.balanceOf(payTo);
    const poor = payer(1_000n);
    expect(await refusal(await stack.paidGet("/api/board/regime", await signedPayment(poor, "/api/board/regime")))).toBe("payment_insufficient_funds");
    const notOptedIn = payer(0n, { optIn: false });
    expect(await refusal(await stack.paidGet("/api/board/regime", await signedPayment(notOptedIn, "/api/board/regime")))).toBe("payment_insufficient_funds");
    expect(algod.balanceOf(payTo)).toBe(before);
    expect(algod.balanceOf(poor.address)).toBe(1_000n);
  });

  it("refuses tampered terms with a reason the client can act on", async () => {
    const account = payer(100_000n);
    const other = algod.accounts[nextPayer++]!.address;
    const cases: [string, (pr: PaymentRequired) => void, string][] = [
      ["amount", (pr) => void (pr.accepts[0]!.amount = "4000"), "payment_amount_mismatch"],
      ["payTo", (pr) => void (pr.accepts[0]!.payTo = other), "payment_pay_to_mismatch"],
      ["network", (pr) => void (pr.accepts[0]!.network = "algorand:SGO1GKSzyE7IEPItTxCByw9x8FmnrCDe"), "payment_network_mismatch"],
    ];
    for (const [name, alter, code] of cases) {
      const payment = await signedPayment(account, "/api/board/regime", alter, false);
      expect(await refusal(await stack.paidGet("/api/board/regime", payment)), name).toBe(code);
    }
    // A group whose members disagree on the group id has no payment key: refused before any claim.
    const [first, second] = [decode(await signedPayment(account, "/api/board/regime")), decode(await signedPayment(account, "/api/board/regime"))];
    const mixed = { ...first, payload: { ...first.payload, paymentGroup: [(second.payload.paymentGroup as string[])[0], (first.payload.paymentGroup as string[])[1]] } };
    expect(await refusal(await stack.paidGet("/api/board/regime", Buffer.from(JSON.stringify(mixed)).toString("base64")))).toBe("payment_invalid_header");
    expect(algod.balanceOf(account.address)).toBe(100_000n);
  });

  it("refuses a group that is past its last valid round as expired", async () => {
    const account = payer(100_000n);
    const payment = await signedPayment(account, "/api/board/regime");
    const { payment: transfer } = paymentGroup(decode(payment))!;
    algod.advanceRounds(Number(transfer.lastValid - algod.currentRound()) + 1);
    expect(await refusal(await stack.paidGet("/api/board/regime", payment))).toBe("payment_expired");
  });
});

describe("reconciliation after a restart", () => {
  it("settles a claim whose group landed, keeps one that can still land, releases it once expired", async () => {
    const moved = payer(5_000n);
    const stranded = payer(5_000n);
    const movedPayment = await signedPayment(moved, "/api/board/regime");
    const strandedPayment = await signedPayment(stranded, "/api/board/regime");
    // Two claims left open, as when a process stops between claim and settlement.
    const claim = (value: string) => request(stack.nc, paymentsClaim, { path: "/api/board/regime", query: "", carrier: "payment-signature", value });
    const a = await claim(movedPayment);
    const b = await claim(strandedPayment);
    // The first group was submitted just before the stop (a facilitator with the same fee payer).
    const ours = new LocalFacilitator();
    rail().register!(ours.facilitator);
    const sent = await ours.settle(decode(movedPayment), decode(movedPayment).accepted);
    expect(sent.success).toBe(true);

    await stack.stopPayments();
    await new Promise((r) => setTimeout(r, 1_100));
    await startPayments({ RECONCILE_AFTER_SECONDS: "1" });
    const claims = stack.payments!.claims;
    expect(await claims.get(a.claim_id)).toMatchObject({ state: "settled", transaction: sent.transaction });
    // Its group is still within its validity window: a settlement in flight could land it.
    expect(await claims.get(b.claim_id)).toMatchObject({ state: "claimed" });
    expect(await stack.payments!.reconcile()).toMatchObject({ released: 0, open: 1 });

    const { payment: transfer } = paymentGroup(decode(strandedPayment))!;
    algod.advanceRounds(Number(transfer.lastValid - algod.currentRound()) + 1);
    expect((await stack.payments!.reconcile()).released).toBeGreaterThanOrEqual(1);
    expect(await claims.get(b.claim_id)).toMatchObject({ state: "released" });
    expect(algod.balanceOf(stranded.address)).toBe(5_000n);
    expect(await refusal(await stack.paidGet("/api/board/regime", movedPayment))).toBe("payment_already_used");
    expect(await refusal(await stack.paidGet("/api/board/regime", strandedPayment))).toBe("payment_expired");
  });
});

describe("an algod that cannot be asked", () => {
  it("answers 503 service_unavailable (retry later), claims and charges nothing", async () => {
    const account = payer(100_000n);
    const payment = await signedPayment(account, "/api/board/regime");
    await stack.stopPayments();
    // Our algod token refused: the payment was never judged, so it is not refused either.
    await startPayments({}, "not-the-token");
    const res = await stack.paidGet("/api/board/regime", payment);
    expect(res.status).toBe(503);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("service_unavailable");
    expect(algod.balanceOf(account.address)).toBe(100_000n);
    await stack.stopPayments();
    await startPayments();
    expect((await stack.paidGet("/api/board/regime", payment)).status).toBe(200);
    expect(algod.balanceOf(account.address)).toBe(95_000n);
  });
});
