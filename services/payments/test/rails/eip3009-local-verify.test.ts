import { startEvmChain, type EvmChain } from "@board/test-chains/evm";
import { x402Facilitator } from "@x402/core/facilitator";
import type { PaymentPayload, PaymentRequired, PaymentRequirements, VerifyResponse } from "@x402/core/types";
import { toFacilitatorEvmSigner } from "@x402/evm";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { registerExactEvmScheme } from "@x402/evm/exact/facilitator";
import { x402Client } from "@x402/fetch";
import { createWalletClient, getAddress, http, publicActions, toHex, type Address, type Hex, type LocalAccount } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { authorizationTypes } from "mppx/evm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Eip3009Terms } from "../../src/rails/eip3009.js";
import { baseRecover, eip3009Authorization } from "../../src/rails/base-exact.js";
import { verifyEip3009Locally, type LocalVerdict } from "../../src/rails/eip3009-local-verify.js";
import { isMalformedInput } from "../../src/rails/malformed-input.js";
import { reasonCode } from "../../src/x402/reasons.js";

const NETWORK = "eip155:8453";
const PRICE = 5000n;

let chain: EvmChain;
let facilitator: x402Facilitator;
let payer: LocalAccount;
let stranger: LocalAccount;
let payTo: Address;
let requirement: PaymentRequirements;
const recovers = { native: baseRecover("native"), viem: baseRecover("viem") };

const now = () => BigInt(Math.floor(Date.now() / 1000));
const freshNonce = () => toHex(crypto.getRandomValues(new Uint8Array(32)));

/** An x402 v2 exact payload: `signer` signs `signed` (default: the payer's terms for the price), `sent` is what travels. */
async function payment(opts: { signed?: Partial<Eip3009Terms>; sent?: Partial<Record<keyof Eip3009Terms, string>>; signer?: LocalAccount; signature?: (s: Hex) => Hex } = {}): Promise<PaymentPayload> {
  const terms: Eip3009Terms = { from: payer.address, to: payTo, value: PRICE, validAfter: now() - 600n, validBefore: now() + 300n, nonce: freshNonce(), ...opts.signed };
  const signature = await (opts.signer ?? payer).signTypedData({
    domain: { name: "USD Coin", version: "2", chainId: chain.chainId, verifyingContract: chain.usdc },
    types: authorizationTypes,
    primaryType: "TransferWithAuthorization",
    message: terms,
  });
  const authorization = {
    from: terms.from,
    to: terms.to,
    value: terms.value.toString(),
    validAfter: terms.validAfter.toString(),
    validBefore: terms.validBefore.toString(),
    nonce: terms.nonce as string,
    ...opts.sent,
  };
  return {
    x402Version: 2,
    resource: { url: "http://board.test/api/board/regime", description: "board read", mimeType: "application/json" },
    accepted: requirement,
    payload: { authorization, signature: opts.signature ? opts.signature(signature) : signature },
  };
}

/** x402's facilitator's verdict, as the claim desk reads it (a malformed field thrown is payment_invalid_header). */
async function facilitatorVerdict(p: PaymentPayload): Promise<VerifyResponse & { code: string | null }> {
  try {
    const r = await facilitator.verify(p, requirement);
    return { ...r, code: r.isValid ? null : reasonCode(r.invalidReason) };
  } catch (err) {
    if (isMalformedInput(err)) return { isValid: false, invalidReason: "malformed", code: "payment_invalid_header" };
    throw err;
  }
}

/** Ours, with both verifiers: they must agree. */
async function localVerdict(p: PaymentPayload): Promise<LocalVerdict> {
  const native = await verifyEip3009Locally(p, requirement, chain.chainId, recovers.native);
  const viem = await verifyEip3009Locally(p, requirement, chain.chainId, recovers.viem);
  expect(viem).toEqual(native);
  return native;
}

const summary = (v: LocalVerdict) => (v === null ? null : v.ok ? "ok" : v.code);

beforeAll(async () => {
  chain = await startEvmChain({ accounts: 1 });
  payer = privateKeyToAccount(generatePrivateKey());
  stranger = privateKeyToAccount(generatePrivateKey());
  payTo = privateKeyToAccount(generatePrivateKey()).address;
  // Funded: the facilitator's simulation must pass for a valid payment.
  await chain.mint(payer.address, 1_000_000n);
  requirement = {
    scheme: "exact",
    network: NETWORK,
    asset: chain.usdc,
    amount: PRICE.toString(),
    payTo,
    maxTimeoutSeconds: 300,
    extra: { name: "USD Coin", version: "2" },
  };
  // x402's own facilitator on the local chain, its signer built straight from viem (not our baseSigner).
  const account = privateKeyToAccount(chain.accounts[0] as Hex);
  const wallet = createWalletClient({ account, chain: chain.chain, transport: http(chain.rpcUrl), pollingInterval: 50 }).extend(publicActions);
  const signer = toFacilitatorEvmSigner({ ...wallet, address: account.address } as unknown as Parameters<typeof toFacilitatorEvmSigner>[0]);
  facilitator = new x402Facilitator();
  registerExactEvmScheme(facilitator, { signer, networks: NETWORK });
}, 60_000);

afterAll(async () => {
  await chain?.stop();
});

describe("verifyEIP3009Locally agrees with x402's facilitator", () => {
  it("a payment signed by @x402/evm's own client: ok, as the facilitator's isValid", async () => {
    const pr: PaymentRequired = { x402Version: 2, resource: { url: "http://board.test/api/board/regime", description: "", mimeType: "application/json" }, accepts: [requirement] };
    const client = x402Client.fromConfig({ schemes: [], spendControls: false }).register("eip155:*", new ExactEvmScheme(payer));
    const p = await client.createPaymentPayload(pr);
    const ours = await localVerdict(p);
    expect(await facilitatorVerdict(p)).toMatchObject({ isValid: true });
    expect(ours).toMatchObject({ ok: true, authorization: { from: getAddress(payer.address), to: getAddress(payTo), value: PRICE } });
  });

  const cases: [string, () => Promise<PaymentPayload>, string | null][] = [
    ["valid", () => payment(), "ok"],
    ["signed by another key", () => payment({ signer: stranger }), "payment_invalid_signature"],
    ["value altered after signing", () => payment({ sent: { value: "4999" } }), "payment_invalid_signature"],
    ["to altered after signing", () => payment({ sent: { to: stranger.address } }), "payment_invalid_signature"],
    ["signed to another recipient", () => payment({ signed: { to: stranger.address } }), "payment_pay_to_mismatch"],
    ["validBefore passed", () => payment({ signed: { validBefore: now() - 10n } }), "payment_expired"],
    ["validBefore within 6 s", () => payment({ signed: { validBefore: now() + 3n } }), "payment_expired"],
    ["validAfter in the future", () => payment({ signed: { validAfter: now() + 120n } }), "payment_expired"],
    ["amount not the price", () => payment({ signed: { value: PRICE + 1n } }), "payment_amount_mismatch"],
    ["value malformed", () => payment({ sent: { value: "5e3" } }), "payment_invalid_header"],
  ];

  it.each(cases)("%s", async (_name, build, expected) => {
    const p = await build();
    const ours = await localVerdict(p);
    const theirs = await facilitatorVerdict(p);
    expect(summary(ours)).toBe(expected);
    if (ours === null) {
      // Undecidable here: the facilitator decides, and it refuses a signature that is not the payer's.
      expect(theirs).toMatchObject({ isValid: false, code: "payment_invalid_signature" });
    } else if (ours.ok) {
      expect(theirs.isValid).toBe(true);
    } else {
      expect(theirs.isValid).toBe(false);
      expect({ ours: ours.code, theirs: theirs.code, reason: theirs.invalidReason }).toMatchObject({ ours: theirs.code });
    }
  });

  it.each([
    ["short", "0x1234"],
    ["not hex", `0x${"zz".repeat(32)}`],
  ])("a malformed nonce (%s): refused by both; the code is the rail's, which reads the authorization before the facilitator", async (_name, nonce) => {
    const p = await payment({ sent: { nonce } });
    const ours = await localVerdict(p);
    expect(ours).toMatchObject({ ok: false, code: "payment_invalid_header" });
    // The facilitator cannot hash a nonce that is not bytes32, so it calls the signature invalid...
    expect(await facilitatorVerdict(p)).toMatchObject({ isValid: false, code: "payment_invalid_signature" });
    // ...but on its path the claim desk never gets there: the rail's paymentKey refuses the payload as malformed (payment_invalid_header).
    expect(eip3009Authorization(p)).toBeNull();
  });

  it("a signature longer than 65 bytes (ERC-1271 / ERC-6492) is left to the facilitator", async () => {
    for (const extra of ["00", "ab".repeat(32)]) {
      const p = await payment({ signature: (s) => `${s}${extra}` as Hex });
      expect(await localVerdict(p)).toBeNull();
    }
  });

  it("a signature longer than 65 bytes whose terms do not hold is refused here, never asked of the facilitator", async () => {
    const cases: [Parameters<typeof payment>[0], string][] = [
      [{ signed: { to: stranger.address } }, "payment_pay_to_mismatch"],
      [{ signed: { validBefore: now() - 10n } }, "payment_expired"],
      [{ signed: { value: PRICE + 1n } }, "payment_amount_mismatch"],
    ];
    for (const [opts, code] of cases) {
      const p = await payment({ ...opts, signature: (s) => `${s}00` as Hex });
      expect(summary(await localVerdict(p))).toBe(code);
    }
  });

  it("a payload without an EIP-3009 authorization, or without EIP-712 domain in the offer, is undecidable", async () => {
    const p = await payment();
    expect(await localVerdict({ ...p, payload: { permit2Authorization: {} } })).toBeNull();
    const bare = { ...requirement, extra: {} };
    expect(await verifyEip3009Locally(p, bare, chain.chainId, recovers.viem)).toBeNull();
  });
});
