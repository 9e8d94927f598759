import { randomBytes } from "node:crypto";
import { generateKeyPairSigner } from "@solana/kit";
import { decodePaymentRequiredHeader } from "@x402/core/http";
import { createSIWxClientHook, createSIWxPayload, encodeSIWxHeader, type SIWxExtension, type SIWxSigner } from "@x402/extensions/sign-in-with-x";
import { wrapFetchWithPayment, x402Client, x402HTTPClient } from "@x402/fetch";
import algosdk from "algosdk";
import nacl from "tweetnacl";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Stack } from "./harness.js";

const ALGORAND = "algorand:wGHE2Pwdvd7S12BL5FaOP20EGYesN73k";

/** Identity runs a little ahead of the wall clock when a test says so (session expiry). */
const clock = { offsetMs: 0 };
const stack = new Stack();

beforeAll(async () => {
  await stack.start({ now: () => new Date(Date.now() + clock.offsetMs), metering: { BURST_CAPACITY: "100000", BURST_PER_SECOND: "100000" } });
  await stack.startBoard();
  await stack.publishTwoDays();
  await stack.startPayments();
  await stack.untilServing();
}, 60_000);

afterAll(() => stack.stop());

interface TierBody {
  tier: { name: string; used_today: number; limit: number };
}

/** The sign-in-with-x extension of a fresh 402 on a free-tier route. */
async function challenge(path = "/api/board/regime"): Promise<SIWxExtension> {
  const res = await fetch(`${stack.base}${path}`);
  expect(res.status).toBe(402);
  await res.body?.cancel();
  const required = decodePaymentRequiredHeader(res.headers.get("payment-required")!);
  const ext = required.extensions?.["sign-in-with-x"] as SIWxExtension | undefined;
  expect(ext?.info.nonce).toMatch(/^[0-9a-zA-Z]{8,}$/);
  return ext!;
}

async function evmHeader(account = privateKeyToAccount(generatePrivateKey()), mutate: (info: SIWxExtension["info"]) => void = () => {}) {
  const ext = await challenge();
  const info = { ...ext.info };
  mutate(info);
  const payload = await createSIWxPayload({ ...info, chainId: "eip155:8453", type: "eip191" }, account, `${stack.base}/api/board/regime`);
  return { header: encodeSIWxHeader(payload), payload, account };
}

const signedGet = (path: string, header: string) => fetch(`${stack.base}${path}`, { headers: { "sign-in-with-x": header } });

async function refusalCode(res: Response): Promise<string> {
  expect(res.status).toBe(402);
  expect(res.headers.get("payment-required")).toBeTruthy();
  return ((await res.json()) as { error: string }).error;
}

describe("sign-in with @x402/fetch and @x402/extensions' SIWX client", () => {
  it("an EVM wallet signs the 402's challenge (personal_sign, EIP-4361) and reads the free tier", async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const http = new x402HTTPClient(new x402Client()).onPaymentRequired(createSIWxClientHook(account));
    const res = await wrapFetchWithPayment(fetch, http)(`${stack.base}/api/board/regime`);
    expect(res.status).toBe(200);
    expect(res.headers.get("x-board-tier")).toBe("wallet");
    expect(((await res.json()) as TierBody).tier).toMatchObject({ name: "wallet", used_today: 1, limit: 25 });
  });

  it("a Solana wallet signs it (signMessage) and reads the free tier", async () => {
    const signer = await generateKeyPairSigner();
    // @x402/extensions declares its Solana signer loosely; @solana/kit's branded types do not match it, the shapes do.
    const http = new x402HTTPClient(new x402Client()).onPaymentRequired(createSIWxClientHook(signer as unknown as SIWxSigner));
    const res = await wrapFetchWithPayment(fetch, http)(`${stack.base}/api/board/movers`);
    expect(res.status).toBe(200);
    expect(((await res.json()) as TierBody).tier).toMatchObject({ name: "wallet", used_today: 1 });
  });
});

describe("one signed header is a session", () => {
  it("is replayable on every free-tier route until expirationTime, counted per address, and never opens other routes", async () => {
    const { header, payload } = await evmHeader();
    expect(Date.parse(payload.expirationTime!) - Date.parse(payload.issuedAt)).toBe(600_000);
    const used: number[] = [];
    for (const path of ["/api/board/regime", "/api/board/indices", "/api/board/crypto", "/api/board/tradfi-risk"]) {
      const res = await signedGet(path, header);
      expect(res.status, path).toBe(200);
      used.push(((await res.json()) as TierBody).tier.used_today);
    }
    expect(used).toEqual([1, 2, 3, 4]);
    // A second session of the same address shares its count.
    const again = await evmHeader(privateKeyToAccount(generatePrivateKey()));
    expect(((await (await signedGet("/api/board/regime", again.header)).json()) as TierBody).tier.used_today).toBe(1);

    expect(await refusalCode(await signedGet("/api/board/buylist", header))).toBe("route_not_in_tier");

    clock.offsetMs = 601_000;
    try {
      const expired = await signedGet("/api/board/regime", header);
      expect(await refusalCode(expired)).toBe("sign_in_expired");
    } finally {
      clock.offsetMs = 0;
    }
  });

  it("refuses a header for another domain, a forged signature, a nonce we never issued and stretched times", async () => {
    const otherDomain = await evmHeader(undefined, (info) => {
      info.domain = "evil.example";
      info.uri = "https://evil.example/api/board/regime";
    }).catch(() => null);
    // The client itself refuses to sign a challenge bound elsewhere; sign it by hand as an attacker would.
    expect(otherDomain).toBeNull();
    const account = privateKeyToAccount(generatePrivateKey());
    const base = (await evmHeader(account)).payload;
    const forge = async (changes: Partial<typeof base>, signer = account) => {
      const payload = { ...base, ...changes };
      const { formatSIWEMessage } = await import("@x402/extensions/sign-in-with-x");
      const message = formatSIWEMessage({ ...payload, chainId: payload.chainId, type: "eip191" }, payload.address);
      return encodeSIWxHeader({ ...payload, signature: await signer.signMessage({ message }) });
    };
    const cases: [string, string][] = [
      ["another domain", await forge({ domain: "evil.example", uri: "https://evil.example/api/board/regime" })],
      ["forged signature", encodeSIWxHeader({ ...base, signature: await privateKeyToAccount(generatePrivateKey()).signMessage({ message: "x" }) })],
      ["a signature by another key", await forge({}, privateKeyToAccount(generatePrivateKey()))],
      ["a nonce we never issued", await forge({ nonce: randomBytes(16).toString("hex") })],
      ["a stretched session", await forge({ expirationTime: new Date(Date.parse(base.issuedAt) + 3_600_000).toISOString() })],
    ];
    for (const [what, header] of cases) {
      const res = await signedGet("/api/board/regime", header);
      expect(await refusalCode(res), what).toBe("sign_in_invalid");
    }
    expect(await refusalCode(await signedGet("/api/board/regime", "bm90IGpzb24="))).toBe("sign_in_invalid");
  });
});

describe("Algorand, and the nonce and verify endpoints", () => {
  it("GET /api/auth/nonce refuses an unknown chain or a malformed address with a 400", async () => {
    const evm = privateKeyToAccount(generatePrivateKey()).address;
    const cases: [string, string][] = [
      [`/api/auth/nonce?address=${evm}&chain=eip155:1`, "unknown_chain"],
      [`/api/auth/nonce?address=0x1234&chain=eip155:8453`, "invalid_address"],
      [`/api/auth/nonce?address=${evm}&chain=${ALGORAND}`, "invalid_address"],
      [`/api/auth/nonce?chain=eip155:8453`, "invalid_query"],
    ];
    for (const [path, code] of cases) {
      const res = await fetch(`${stack.base}${path}`);
      expect(res.status, path).toBe(400);
      expect(((await res.json()) as { error: { code: string } }).error.code, path).toBe(code);
    }
  });

  it("an Algorand account signs the message with algosdk (ed25519 over MX + message), gets a wallet key, and reads with it and with the header", async () => {
    const acct = algosdk.generateAccount();
    const address = acct.addr.toString();
    const nonce = await fetch(`${stack.base}/api/auth/nonce?address=${address}&chain=${encodeURIComponent(ALGORAND)}`);
    expect(nonce.status).toBe(200);
    const challenge = (await nonce.json()) as { info: Record<string, string>; message: string; chainId: string; type: string };
    expect(challenge.message).toContain(address);
    expect(challenge.message).toContain(`Nonce: ${challenge.info.nonce}`);
    const signature = Buffer.from(algosdk.signBytes(new TextEncoder().encode(challenge.message), acct.sk)).toString("base64");
    const payload = { ...challenge.info, address, chainId: ALGORAND, type: "ed25519", signature };

    const verified = await fetch(`${stack.base}/api/auth/verify`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(payload) });
    expect(verified.status).toBe(201);
    const key = (await verified.json()) as { key: string; tier: string; address: string; daily_limit: number };
    expect(key).toMatchObject({ tier: "wallet", address, daily_limit: 25 });

    const withKey = await fetch(`${stack.base}/api/board/regime`, { headers: { "x-board-key": key.key } });
    expect(withKey.status).toBe(200);
    expect(((await withKey.json()) as TierBody).tier).toMatchObject({ name: "wallet", used_today: 1 });
    const withHeader = await signedGet("/api/board/indices", Buffer.from(JSON.stringify(payload)).toString("base64"));
    expect(withHeader.status).toBe(200);
    expect(((await withHeader.json()) as TierBody).tier.used_today).toBe(2);

    // The same message signed without the MX prefix is not a sign-in (DECISION: Algorand sign-ins are MX-prefixed).
    const bare = nacl.sign.detached(new TextEncoder().encode(challenge.message), acct.sk);
    const withoutPrefix = { ...payload, signature: Buffer.from(bare).toString("base64") };
    const refused = await fetch(`${stack.base}/api/auth/verify`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(withoutPrefix) });
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("sign_in_invalid");
  });

  it("POST /api/auth/verify refuses a body that is not a signed payload with a 400", async () => {
    const res = await fetch(`${stack.base}/api/auth/verify`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ message: "hi" }) });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: string; param: string } }).error).toMatchObject({ code: "invalid_request" });
  });
});
