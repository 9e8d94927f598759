import { createPrivateKey, sign } from "node:crypto";
import { generateKeyPairSigner } from "@solana/kit";
import { createSIWxClientHook, createSIWxPayload, encodeSIWxHeader, type SIWxSigner } from "@x402/extensions/sign-in-with-x";
import algosdk from "algosdk";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { ALGORAND_MAINNET, BASE_MAINNET, SOLANA_MAINNET } from "../../src/sign-in/chains.js";
import { chainOf, newSignIn, nodeSolanaWallet, ORIGIN } from "./clients.js";

const RESOURCE = "https://board.example/api/board/regime";

describe("challenge", () => {
  it("binds the info to our origin, with a 10-minute session and the chains in client order", () => {
    const { signIn } = newSignIn();
    const reply = signIn.challenge({ resource_url: "http://gateway.internal:8080/api/board/regime?x=1" });
    expect(reply.supportedChains).toEqual([
      { chainId: "eip155:8453", type: "eip191" },
      { chainId: "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp", type: "ed25519" },
      { chainId: "algorand:wGHE2Pwdvd7S12BL5FaOP20EGYesN73k", type: "ed25519" },
    ]);
    const { info } = reply;
    expect(info.domain).toBe("board.example");
    expect(info.uri).toBe("https://board.example/api/board/regime?x=1");
    expect(info.resources).toEqual([info.uri]);
    expect(info.version).toBe("1");
    expect(info.statement).toBe("Sign in to read the board's free tier.");
    expect(Date.parse(info.expirationTime) - Date.parse(info.issuedAt)).toBe(600_000);
    expect(info.nonce).toMatch(/^[0-9a-f]{48}$/);
    expect(reply.message).toBeUndefined();
  });

  it("uses our origin's root without a resource, and keeps a //path a path", () => {
    const { signIn } = newSignIn(new URL("http://localhost:3000"));
    expect(signIn.challenge({}).info).toMatchObject({ domain: "localhost:3000", uri: "http://localhost:3000/" });
    expect(signIn.challenge({ resource_url: "https://x.example//evil.example/a" }).info.uri).toBe("http://localhost:3000//evil.example/a");
  });

  it("issues a new nonce each time", () => {
    const { signIn } = newSignIn();
    expect(signIn.challenge({}).info.nonce).not.toBe(signIn.challenge({}).info.nonce);
  });
});

describe("EVM (viem account through @x402/extensions' client)", () => {
  it("verifies a header made by createSIWxPayload and counts the address lowercased", async () => {
    const { signIn } = newSignIn();
    const account = privateKeyToAccount(generatePrivateKey());
    const reply = signIn.challenge({ resource_url: RESOURCE });
    const payload = await createSIWxPayload(chainOf(reply, BASE_MAINNET), account, RESOURCE);
    const result = await signIn.verifyHeader(encodeSIWxHeader(payload));
    expect(result).toEqual({
      ok: true,
      address: account.address,
      chainId: "eip155:8453",
      principalId: `wallet:eip155:8453:${account.address.toLowerCase()}`,
      expiresAt: new Date(reply.info.expirationTime),
    });
  });

  it("gives the exact message for GET /api/auth/nonce, checksumming a lowercase address", async () => {
    const { signIn } = newSignIn();
    const account = privateKeyToAccount(generatePrivateKey());
    const reply = signIn.challenge({ address: account.address.toLowerCase(), chain: BASE_MAINNET });
    expect(reply).toMatchObject({ address: account.address, chainId: BASE_MAINNET, type: "eip191" });
    expect(reply.message).toContain(`board.example wants you to sign in with your Ethereum account:\n${account.address}\n`);
    const signature = await account.signMessage({ message: reply.message ?? "" });
    const result = await signIn.verify({ ...reply.info, address: account.address, chainId: BASE_MAINNET, type: "eip191", signature });
    expect(result.ok).toBe(true);
  });
});

describe("Solana", () => {
  it("verifies a @solana/kit key pair signer, chosen by the x402 client hook from a 402", async () => {
    const { signIn } = newSignIn();
    const signer = await generateKeyPairSigner();
    const reply = signIn.challenge({ resource_url: RESOURCE });
    // The hook picks the first chain of its signature type: Solana must precede Algorand.
    // @solana/kit's branded signature types do not match the library's declared shape; at run time they do.
    const hook = createSIWxClientHook(signer as unknown as SIWxSigner);
    const context = { paymentRequired: { extensions: { "sign-in-with-x": { info: reply.info, supportedChains: reply.supportedChains } } }, requestUrl: RESOURCE };
    const out = await hook(context as unknown as Parameters<typeof hook>[0]);
    const header = out?.headers["sign-in-with-x"];
    expect(header).toBeDefined();
    const result = await signIn.verifyHeader(header ?? "");
    expect(result).toMatchObject({ ok: true, address: signer.address, chainId: SOLANA_MAINNET, principalId: `wallet:${SOLANA_MAINNET}:${signer.address}` });
  });

  it("verifies a wallet-adapter signer", async () => {
    const { signIn } = newSignIn();
    const wallet = nodeSolanaWallet();
    const payload = await createSIWxPayload(chainOf(signIn.challenge({ resource_url: RESOURCE }), SOLANA_MAINNET), wallet, RESOURCE);
    expect(await signIn.verify(payload)).toMatchObject({ ok: true, address: wallet.publicKey });
  });
});

describe("Algorand (algosdk.signBytes over the nonce endpoint's message)", () => {
  async function signAlgorand(chain: string, withPrefix: boolean) {
    const { signIn } = newSignIn();
    const account = algosdk.generateAccount();
    const address = account.addr.toString();
    const reply = signIn.challenge({ address, chain });
    const message = reply.message ?? "";
    const bytes = new TextEncoder().encode(message);
    let signature: Uint8Array;
    if (withPrefix) {
      signature = algosdk.signBytes(bytes, account.sk);
    } else {
      // The same key signing the bare message (no "MX"): what we must refuse.
      const seed = Buffer.from(account.sk.subarray(0, 32));
      const key = createPrivateKey({ key: Buffer.concat([Buffer.from("302e020100300506032b657004220420", "hex"), seed]), format: "der", type: "pkcs8" });
      signature = new Uint8Array(sign(null, bytes, key));
    }
    const payload = { ...reply.info, address, chainId: chain, type: "ed25519" as const, signature: Buffer.from(signature).toString("base64") };
    return { message, address, result: await signIn.verify(payload) };
  }

  it("verifies an MX-prefixed signature against the key inside the address", async () => {
    const { message, address, result } = await signAlgorand(ALGORAND_MAINNET, true);
    expect(message.split("\n").slice(0, 2)).toEqual(["board.example wants you to sign in with your Algorand account:", address]);
    expect(message).toContain("\nChain ID: wGHE2Pwdvd7S12BL5FaOP20EGYesN73k\n");
    expect(result).toMatchObject({ ok: true, address, chainId: ALGORAND_MAINNET, principalId: `wallet:${ALGORAND_MAINNET}:${address}` });
  });

  it("accepts the full genesis-hash chain id and counts it under the short one", async () => {
    const { result, address } = await signAlgorand("algorand:wGHE2Pwdvd7S12BL5FaOP20EGYesN73ktiC1qzkkit8=", true);
    expect(result).toMatchObject({ ok: true, chainId: ALGORAND_MAINNET, principalId: `wallet:${ALGORAND_MAINNET}:${address}` });
  });

  it("refuses a raw signature without the MX prefix", async () => {
    const { result } = await signAlgorand(ALGORAND_MAINNET, false);
    expect(result).toMatchObject({ ok: false, code: "sign_in_invalid" });
  });
});

describe("the header memo", () => {
  it("checks a session's signature once, until it expires", async () => {
    const { signIn, clock } = newSignIn();
    const account = privateKeyToAccount(generatePrivateKey());
    const payload = await createSIWxPayload(chainOf(signIn.challenge({ resource_url: RESOURCE }), BASE_MAINNET), account, ORIGIN);
    const header = encodeSIWxHeader(payload);
    expect((await signIn.verifyHeader(header)).ok).toBe(true);
    expect(signIn.signatureChecks).toBe(1);
    expect((await signIn.verifyHeader(header)).ok).toBe(true);
    expect(signIn.signatureChecks).toBe(1);
    clock.offsetMs = 601_000;
    expect(await signIn.verifyHeader(header)).toMatchObject({ ok: false, code: "sign_in_expired" });
  });

  it("never remembers a forged header", async () => {
    const { signIn } = newSignIn();
    const account = privateKeyToAccount(generatePrivateKey());
    const payload = await createSIWxPayload(chainOf(signIn.challenge({ resource_url: RESOURCE }), BASE_MAINNET), account, ORIGIN);
    const forged = encodeSIWxHeader({ ...payload, address: privateKeyToAccount(generatePrivateKey()).address });
    expect((await signIn.verifyHeader(forged)).ok).toBe(false);
    expect((await signIn.verifyHeader(forged)).ok).toBe(false);
    expect(signIn.signatureChecks).toBe(2);
  });
});
