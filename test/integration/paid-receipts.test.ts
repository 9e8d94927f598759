import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { boardContentHash, ProofView, ROUTE_BY_PATH, X402_MCP_PAYMENT_META, X402_MCP_RESPONSE_META } from "@board/proto";
import { startEvmChain, type EvmChain } from "@board/test-chains/evm";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { x402Client } from "@x402/core/client";
import { decodePaymentRequiredHeader, decodePaymentResponseHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import type { PaymentRequired } from "@x402/core/types";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import {
  decodeSignedOffers,
  extractOffersFromPaymentRequired,
  extractReceiptFromResponse,
  verifyOfferSignatureJWS,
  verifyReceiptMatchesOffer,
  verifyReceiptSignatureJWS,
  type JWSSignedReceipt,
  type SignedReceipt,
} from "@x402/extensions/offer-receipt";
import { wrapFetchWithPayment } from "@x402/fetch";
import { Receipt } from "mppx";
import { Mppx } from "mppx/client";
import type { Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { usdcClientMethod } from "../../services/payments/test/support/mpp-usdc-client.js";
import { Stack } from "./harness.js";

const ROOT = path.resolve(import.meta.dirname, "../..");
const stack = new Stack();
let chain: EvmChain;
const payTo = privateKeyToAccount(generatePrivateKey()).address;
const MPP_SECRET_KEY = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64");
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "board-receipts-"));

beforeAll(async () => {
  chain = await startEvmChain({ accounts: 4 });
  await stack.start();
  await stack.startBoard();
  await stack.publishTwoDays({ live: true });
  // PUBLIC_BASE_URL is the stack's own: the receipts' did:web resolves at this gateway.
  await stack.startPayments({ PAY_TO_BASE: payTo, BASE_RPC_URL: chain.rpcUrl, BASE_FACILITATOR_KEY: chain.accounts[0] as Hex, MPP_SECRET_KEY });
  await stack.untilServing();
}, 90_000);
afterAll(async () => {
  await stack.stop();
  await chain?.stop();
  fs.rmSync(tmp, { recursive: true, force: true });
});

async function buyer(usdc = 1_000_000n) {
  const account = privateKeyToAccount(generatePrivateKey());
  await chain.mint(account.address, usdc);
  return account;
}

const payloadOf = (receipt: SignedReceipt) => {
  if (receipt.format !== "jws") throw new Error("expected a JWS receipt");
  return JSON.parse(Buffer.from(receipt.signature.split(".")[1]!, "base64url").toString()) as Record<string, unknown>;
};

async function proof(): Promise<ProofView> {
  return ProofView.parse(await (await fetch(`${stack.base}/api/board/proof`)).json());
}

/** npm run verify-proof, as a process of its own (asynchronously: the gateway it asks runs in this process). */
function verifyProof(...args: string[]): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ["--import", "tsx", "scripts/verify-proof.ts", ...args, stack.base], { cwd: ROOT, encoding: "utf8" }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? null) : 0, out: stdout + stderr }),
    );
  });
}

/** The same JWS with one byte of its payload changed (still valid base64url and JSON). */
function oneByteChanged(receipt: JWSSignedReceipt): JWSSignedReceipt {
  const [h, p, s] = receipt.signature.split(".") as [string, string, string];
  const text = Buffer.from(p, "base64url").toString().replace(/"amount":"(\d)/, (_m, d: string) => `"amount":"${(Number(d) + 1) % 10}`);
  return { format: "jws", signature: `${h}.${Buffer.from(text).toString("base64url")}.${s}` };
}

describe("signed offers and receipts (x402 offer-receipt), bound to the board sold", () => {
  it("a 402 carries one signed offer per accepts entry; x402's verifier resolves our did:web and accepts them", async () => {
    const res = await fetch(`${stack.base}/api/board/agent`);
    expect(res.status).toBe(402);
    const required = decodePaymentRequiredHeader(res.headers.get("payment-required")!);
    const offers = decodeSignedOffers(extractOffersFromPaymentRequired(required));
    expect(offers).toHaveLength(required.accepts.length);
    for (const [i, offer] of offers.entries()) {
      expect(offer.format).toBe("jws");
      // No key given: the kid (did:web of this gateway) is resolved at /.well-known/did.json.
      const payload = await verifyOfferSignatureJWS(offer.signedOffer as never);
      const accept = required.accepts[i]!;
      expect(payload).toMatchObject({ resourceUrl: `${stack.base}/api/board/agent`, scheme: accept.scheme, network: accept.network, asset: accept.asset, payTo: accept.payTo, amount: accept.amount });
    }
    const did = await fetch(`${stack.base}/.well-known/did.json`);
    expect(did.headers.get("content-type")).toMatch(/^application\/did\+json/);
  });

  it("@x402/fetch buys the full board; its receipt verifies with x402's helpers, matches the offer, and names the route, price, transaction and the board's commitment", async () => {
    const account = await buyer();
    const offered = decodeSignedOffers(
      extractOffersFromPaymentRequired(decodePaymentRequiredHeader((await fetch(`${stack.base}/api/board/agent`)).headers.get("payment-required")!)),
    ).find((o) => o.network === "eip155:8453")!;
    const pay = wrapFetchWithPayment(fetch, new x402Client().register("eip155:*", new ExactEvmScheme(account)));
    const res = await pay(`${stack.base}/api/board/agent`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    const settlement = decodePaymentResponseHeader(res.headers.get("payment-response")!);
    const receipt = extractReceiptFromResponse(res);
    if (!receipt) throw new Error("no receipt in PAYMENT-RESPONSE");
    const verified = (await verifyReceiptSignatureJWS(receipt as JWSSignedReceipt)) as unknown as Record<string, unknown>;
    expect(verifyReceiptMatchesOffer(receipt, offered, [account.address])).toBe(true);
    const price = ROUTE_BY_PATH.get("/api/board/agent")!.price!;
    expect(verified).toMatchObject({
      version: 1,
      network: "eip155:8453",
      resourceUrl: `${stack.base}/api/board/agent`,
      payer: account.address,
      transaction: settlement.transaction,
      amount: price.toString(),
      asset: chain.usdc,
      contentHash: boardContentHash(body),
    });
    const entry = (await proof()).entries.find((e) => e.content_hash === verified.contentHash)!;
    expect(entry).toBeTruthy();
    expect(verified).toMatchObject({ commitment: entry.commitment, proofSeq: entry.seq });

    // npm run verify-proof checks the receipt and the saved board together; one byte changed and it does not.
    fs.writeFileSync(path.join(tmp, "board.json"), JSON.stringify(body));
    fs.writeFileSync(path.join(tmp, "receipt.txt"), res.headers.get("payment-response")!);
    const ok = await verifyProof("--receipt", path.join(tmp, "receipt.txt"), "--board", path.join(tmp, "board.json"));
    expect(ok.out).toMatch(/verified: the board sold, content [0-9a-f]{64}, is commitment #\d+/);
    expect(ok.code).toBe(0);
    fs.writeFileSync(path.join(tmp, "changed.json"), JSON.stringify(oneByteChanged(receipt as JWSSignedReceipt)));
    await expect(verifyReceiptSignatureJWS(oneByteChanged(receipt as JWSSignedReceipt))).rejects.toThrow();
    const changed = await verifyProof("--receipt", path.join(tmp, "changed.json"));
    expect(changed.out).toMatch(/NOT verified: the signature does not verify/);
    expect(changed.code).toBe(1);
    // A board other than the one the receipt names is refused by the same check.
    fs.writeFileSync(path.join(tmp, "other.json"), JSON.stringify({ ...body, asof_daily: "1999-01-01" }));
    expect((await verifyProof("--receipt", path.join(tmp, "receipt.txt"), "--board", path.join(tmp, "other.json"))).code).toBe(1);
  });

  it("a view names the board version it was cut from; the same payment again is delivered with the same receipt", async () => {
    const account = await buyer();
    const required = decodePaymentRequiredHeader((await fetch(`${stack.base}/api/board/regime`)).headers.get("payment-required")!);
    const payload = await new x402Client().register("eip155:*", new ExactEvmScheme(account)).createPaymentPayload(required as PaymentRequired);
    const header = { "PAYMENT-SIGNATURE": encodePaymentSignatureHeader(payload) };
    const first = await fetch(`${stack.base}/api/board/regime`, { headers: header });
    expect(first.status).toBe(200);
    const again = await fetch(`${stack.base}/api/board/regime`, { headers: header });
    expect(again.status).toBe(200);
    expect(again.headers.get("payment-redelivery")).toBe("1");
    expect(again.headers.get("payment-response")).toBe(first.headers.get("payment-response"));
    const verified = (await verifyReceiptSignatureJWS(extractReceiptFromResponse(first) as JWSSignedReceipt)) as unknown as Record<string, unknown>;
    const head = (await proof()).head!;
    expect(verified).toMatchObject({ resourceUrl: `${stack.base}/api/board/regime`, contentHash: head.content_hash, commitment: head.commitment, proofSeq: head.seq });
  });

  it("MPP: the Payment-Receipt carries the same content hash and commitment, and the same signed receipt", async () => {
    const account = await buyer();
    const res = await Mppx.create({ methods: [usdcClientMethod(account)], polyfill: false }).fetch(`${stack.base}/api/board/regime`);
    expect(res.status).toBe(200);
    const receipt = Receipt.fromResponse(res) as Receipt.Receipt & Record<string, unknown>;
    const head = (await proof()).head!;
    expect(receipt).toMatchObject({ method: "usdc", status: "success", contentHash: head.content_hash, commitment: head.commitment, proofSeq: head.seq });
    const signed = (await verifyReceiptSignatureJWS({ format: "jws", signature: String(receipt.signedReceipt) })) as unknown as Record<string, unknown>;
    expect(signed).toMatchObject({ transaction: receipt.reference, payer: account.address, contentHash: head.content_hash, amount: "5000" });
    fs.writeFileSync(path.join(tmp, "mpp-receipt.txt"), res.headers.get("payment-receipt")!);
    expect((await verifyProof("--receipt", path.join(tmp, "mpp-receipt.txt"))).code).toBe(0);
  });

  it("MCP: a paid tool's settlement in _meta carries the signed receipt", async () => {
    const account = await buyer();
    const client = new Client({ name: "board-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${stack.base}/mcp`)));
    const unpaid = (await client.callTool({ name: "get_regime_live", arguments: {} })) as CallToolResult;
    const payload = await new x402Client().register("eip155:*", new ExactEvmScheme(account)).createPaymentPayload(unpaid.structuredContent as unknown as PaymentRequired);
    const paid = (await client.callTool({ name: "get_regime_live", arguments: {}, _meta: { [X402_MCP_PAYMENT_META]: payload } })) as CallToolResult;
    expect(paid.isError).toBeFalsy();
    const settlement = paid._meta?.[X402_MCP_RESPONSE_META] as { transaction: string; extensions?: Record<string, { info: { receipt: JWSSignedReceipt } }> };
    const receipt = settlement.extensions?.["offer-receipt"]?.info.receipt;
    if (!receipt) throw new Error("no receipt in the MCP settlement");
    expect(await verifyReceiptSignatureJWS(receipt)).toMatchObject({ transaction: settlement.transaction, payer: account.address });
    expect(payloadOf(receipt).resourceUrl).toBe(`${stack.base}/api/board/regime`);
    await client.close();
  });
});
