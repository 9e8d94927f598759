import { randomBytes } from "node:crypto";
import type { SignInPayload } from "@board/proto";
import { isBusError } from "@board/service-kit";
import { createSIWxPayload, encodeSIWxHeader, type CompleteSIWxInfo } from "@x402/extensions/sign-in-with-x";
import algosdk from "algosdk";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { ALGORAND_MAINNET, BASE_MAINNET, SOLANA_MAINNET } from "../../src/sign-in/chains.js";
import type { SignIn } from "../../src/sign-in/index.js";
import { chainOf, newSignIn, nodeSolanaWallet, ORIGIN, signEvm } from "./clients.js";

const RESOURCE = "https://board.example/api/board/hold?sym=AAPL";
const account = privateKeyToAccount(generatePrivateKey());

function evmInfo(signIn: SignIn): CompleteSIWxInfo {
  return chainOf(signIn.challenge({ resource_url: RESOURCE }), BASE_MAINNET);
}

function busErrorCode(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    if (isBusError(e)) return `${e.code} ${e.status}`;
    throw e;
  }
  return undefined;
}

const isoPlus = (iso: string, ms: number) => new Date(Date.parse(iso) + ms).toISOString();

describe("verify refuses", () => {
  it("a session replayed after its expirationTime (sign_in_expired)", async () => {
    const { signIn, clock } = newSignIn();
    const header = encodeSIWxHeader(await createSIWxPayload(evmInfo(signIn), account, RESOURCE));
    clock.offsetMs = 601_000;
    const result = await signIn.verifyHeader(header);
    expect(result).toMatchObject({ ok: false, code: "sign_in_expired" });
    expect(result.ok || result.message).toMatch(/fresh challenge/);
    expect(signIn.signatureChecks).toBe(0);
  });

  it("a message for another domain, signed by the wallet for that site", async () => {
    const { signIn } = newSignIn();
    const other = newSignIn(new URL("https://elsewhere.example")).signIn;
    const info = chainOf(other.challenge({ resource_url: "https://elsewhere.example/x" }), BASE_MAINNET);
    const payload = await createSIWxPayload(info, account, "https://elsewhere.example/x");
    expect(await signIn.verify(payload)).toMatchObject({ ok: false, code: "sign_in_invalid", message: expect.stringMatching(/another site/) });
  });

  it("a challenge whose uri was moved to another origin", async () => {
    const { signIn } = newSignIn();
    const info = evmInfo(signIn);
    const payload = await signEvm({ ...info, uri: "https://elsewhere.example/api/board/hold", resources: ["https://elsewhere.example/api/board/hold"] }, account);
    expect(await signIn.verify(payload)).toMatchObject({ ok: false, code: "sign_in_invalid", message: expect.stringMatching(/another site/) });
  });

  it("a signature by another key than the address's", async () => {
    const { signIn } = newSignIn();
    const thief = privateKeyToAccount(generatePrivateKey());
    const payload = await signEvm(evmInfo(signIn), thief, account.address);
    expect(await signIn.verify(payload)).toMatchObject({ ok: false, code: "sign_in_invalid", message: expect.stringMatching(/signature does not match/) });
  });

  it("a forged Solana signature", async () => {
    const { signIn } = newSignIn();
    const [wallet, other] = [nodeSolanaWallet(), nodeSolanaWallet()];
    const info = chainOf(signIn.challenge({ resource_url: RESOURCE }), SOLANA_MAINNET);
    const payload = await createSIWxPayload(info, other, RESOURCE);
    expect(await signIn.verify({ ...payload, address: wallet.publicKey })).toMatchObject({ ok: false, code: "sign_in_invalid" });
  });

  it("an Algorand signature by another account", async () => {
    const { signIn } = newSignIn();
    const [owner, thief] = [algosdk.generateAccount(), algosdk.generateAccount()];
    const address = owner.addr.toString();
    const reply = signIn.challenge({ address, chain: ALGORAND_MAINNET });
    const signature = Buffer.from(algosdk.signBytes(new TextEncoder().encode(reply.message ?? ""), thief.sk)).toString("base64");
    const result = await signIn.verify({ ...reply.info, address, chainId: ALGORAND_MAINNET, type: "ed25519", signature });
    expect(result).toMatchObject({ ok: false, code: "sign_in_invalid" });
  });

  it("a nonce we never issued", async () => {
    const { signIn } = newSignIn();
    const payload = await signEvm({ ...evmInfo(signIn), nonce: randomBytes(24).toString("hex") }, account);
    expect(await signIn.verify(payload)).toMatchObject({ ok: false, code: "sign_in_invalid", message: expect.stringMatching(/nonce was not issued by this service/) });
  });

  it("a nonce issued under another key (another deployment's secret)", async () => {
    const { signIn } = newSignIn();
    const other = newSignIn(ORIGIN, new Uint8Array(32).fill(8)).signIn;
    const payload = await createSIWxPayload(evmInfo(other), account, RESOURCE);
    expect(await signIn.verify(payload)).toMatchObject({ ok: false, code: "sign_in_invalid" });
    expect(await other.verify(payload)).toMatchObject({ ok: true });
  });

  it("a session stretched by the client (expirationTime later, re-signed)", async () => {
    const { signIn } = newSignIn();
    const info = evmInfo(signIn);
    const payload = await signEvm({ ...info, expirationTime: isoPlus(info.expirationTime ?? "", 3_600_000) }, account);
    expect(await signIn.verify(payload)).toMatchObject({ ok: false, code: "sign_in_invalid", message: expect.stringMatching(/times were changed/) });
  });

  it("both times moved, the session length kept (only the nonce's MAC can tell)", async () => {
    const { signIn } = newSignIn();
    const info = evmInfo(signIn);
    const moved = { ...info, issuedAt: isoPlus(info.issuedAt, -1_000), expirationTime: isoPlus(info.expirationTime ?? "", -1_000) };
    expect(await signIn.verify(await signEvm(moved, account))).toMatchObject({ ok: false, code: "sign_in_invalid" });
  });

  it("a payload without expirationTime", async () => {
    const { signIn } = newSignIn();
    const { expirationTime: _dropped, ...info } = evmInfo(signIn);
    expect(await signIn.verify(await signEvm(info, account))).toMatchObject({ ok: false, code: "sign_in_invalid" });
  });

  it("a type that does not match the chain, and a chain we do not sign in on", async () => {
    const { signIn } = newSignIn();
    const payload = await createSIWxPayload(evmInfo(signIn), account, RESOURCE);
    expect(await signIn.verify({ ...payload, type: "ed25519" })).toMatchObject({ ok: false, code: "sign_in_invalid", message: expect.stringMatching(/signature type/) });
    const wallet = nodeSolanaWallet();
    const sol = await createSIWxPayload(chainOf(signIn.challenge({ resource_url: RESOURCE }), SOLANA_MAINNET), wallet, RESOURCE);
    expect(await signIn.verify({ ...sol, type: "eip191" })).toMatchObject({ ok: false, code: "sign_in_invalid" });
    const mainnet = await signEvm({ ...evmInfo(signIn), chainId: "eip155:1" }, account);
    expect(await signIn.verify(mainnet)).toMatchObject({ ok: false, code: "sign_in_invalid", message: expect.stringMatching(/not offered on this chain/) });
  });

  it("headers that are not base64 JSON of a payload", async () => {
    const { signIn } = newSignIn();
    for (const header of ["not base64!", Buffer.from("{oops").toString("base64"), Buffer.from("{}").toString("base64"), "A".repeat(9000)]) {
      expect(await signIn.verifyHeader(header)).toMatchObject({ ok: false, code: "sign_in_invalid" });
    }
    expect(await signIn.verify({ nonsense: true } as unknown as SignInPayload)).toMatchObject({ ok: false, code: "sign_in_invalid" });
  });

  it("with client messages that name no internals", async () => {
    const { signIn } = newSignIn();
    const payload = await signEvm({ ...evmInfo(signIn), nonce: "deadbeefdeadbeef" }, account);
    const result = await signIn.verify(payload);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.message.length).toBeLessThanOrEqual(500);
      expect(result.message).not.toMatch(/mac|hmac|siwx_|Error/i);
      expect(result.message).toMatch(/GET \/api\/auth\/nonce/);
    }
  });
});

describe("challenge refuses", () => {
  it("an unknown chain", () => {
    const { signIn } = newSignIn();
    expect(busErrorCode(() => signIn.challenge({ chain: "eip155:1" }))).toBe("unknown_chain 400");
    expect(busErrorCode(() => signIn.challenge({ chain: "cosmos:cosmoshub-4", address: "cosmos1abc" }))).toBe("unknown_chain 400");
    expect(busErrorCode(() => signIn.challenge({ address: account.address }))).toBe("unknown_chain 400");
  });

  it("an address malformed for its chain", () => {
    const { signIn } = newSignIn();
    const algo = algosdk.generateAccount().addr.toString();
    const bad: [string, string][] = [
      [BASE_MAINNET, "0x1234"],
      [BASE_MAINNET, account.address + "00"],
      [BASE_MAINNET, algo],
      [SOLANA_MAINNET, account.address],
      [SOLANA_MAINNET, "3Mq"],
      // A changed character inside the key (the last one may only carry base32 padding bits).
      [ALGORAND_MAINNET, algo.slice(0, 10) + (algo[10] === "A" ? "B" : "A") + algo.slice(11)],
      [ALGORAND_MAINNET, nodeSolanaWallet().publicKey],
    ];
    for (const [chain, address] of bad) {
      expect(busErrorCode(() => signIn.challenge({ chain, address })), `${chain} ${address}`).toBe("invalid_address 400");
    }
  });

  it("a mixed-case EVM address with a wrong checksum", () => {
    const { signIn } = newSignIn();
    const lower = account.address.toLowerCase();
    // Flip the case of the first letter after 0x that the checksum set: an invalid EIP-55 spelling.
    const i = [...account.address].findIndex((c, k) => k > 1 && /[a-fA-F]/.test(c));
    const wrong = account.address.slice(0, i) + (account.address[i] === lower[i] ? lower[i]?.toUpperCase() : lower[i]) + account.address.slice(i + 1);
    expect(busErrorCode(() => signIn.challenge({ chain: BASE_MAINNET, address: wrong }))).toBe("invalid_address 400");
  });
});
