import { existsSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { decodePaymentResponseHeader } from "@x402/core/http";
import { RegimeView } from "@board/proto";
import { startEvmChain, type EvmChain } from "@board/test-chains/evm";
import { build } from "esbuild";
import { chromium, type Browser } from "playwright-core";
import type { Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Stack } from "./harness.js";

// A web page of another origin pays for a read with @x402/fetch, as a browser-based x402 client
// does: the 402's PAYMENT-REQUIRED must be readable, the paid retry (PAYMENT-SIGNATURE and the
// Access-Control-Expose-Headers request header @x402/fetch adds) must pass its preflight, and
// PAYMENT-RESPONSE must be readable on the 200. The page only signs; the gateway's payments
// service talks to the chain.

/** Debian's chromium (.ci/run installs it); never a downloaded browser. */
const CHROMIUM = "/usr/bin/chromium";
const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** The page's script, bundled for the browser: @x402/fetch with the EVM exact scheme and a viem account. */
const CLIENT = `
import { wrapFetchWithPayment, x402Client } from "@x402/fetch";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { privateKeyToAccount } from "viem/accounts";

const read = async (res) => ({
  status: res.status,
  paymentRequired: res.headers.get("payment-required"),
  paymentResponse: res.headers.get("payment-response"),
  dataAge: res.headers.get("x-board-data-age"),
  etag: res.headers.get("etag"),
  // Not exposed: a cross-origin page must not see it.
  date: res.headers.get("date"),
  body: await res.text(),
});

globalThis.unpaid = async (url) => read(await fetch(url));

globalThis.payAndRead = async (url, key) => {
  const client = new x402Client().register("eip155:*", new ExactEvmScheme(privateKeyToAccount(key)));
  return read(await wrapFetchWithPayment(fetch, client)(url));
};
`;

interface PageRead {
  status: number;
  paymentRequired: string | null;
  paymentResponse: string | null;
  dataAge: string | null;
  etag: string | null;
  date: string | null;
  body: string;
}

const stack = new Stack();
let chain: EvmChain;
let browser: Browser;
let pageServer: http.Server;
let pageOrigin = "";
const payTo = privateKeyToAccount(generatePrivateKey()).address;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium), as .ci/run does.`);
  const bundled = await build({
    stdin: { contents: CLIENT, resolveDir: ROOT, loader: "js", sourcefile: "cors-client.js" },
    bundle: true,
    platform: "browser",
    format: "iife",
    target: "chrome120",
    write: false,
    logLevel: "silent",
  });
  const script = bundled.outputFiles[0]!.contents;
  // The other origin: the same host on another port, serving the page and its script.
  pageServer = http.createServer((req, res) => {
    if (req.url === "/client.js") return void res.writeHead(200, { "content-type": "text/javascript; charset=utf-8" }).end(script);
    if (req.url === "/") return void res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end('<!doctype html><title>another origin</title><script src="/client.js"></script>');
    // The favicon the browser asks for, and anything else: nothing.
    res.writeHead(204).end();
  });
  await new Promise<void>((resolve) => pageServer.listen(0, "127.0.0.1", resolve));
  pageOrigin = `http://127.0.0.1:${(pageServer.address() as AddressInfo).port}`;

  chain = await startEvmChain({ accounts: 2 });
  await stack.start();
  await stack.startBoard();
  await stack.publishTwoDays();
  await stack.startPayments({ PAY_TO_BASE: payTo, BASE_RPC_URL: chain.rpcUrl, BASE_FACILITATOR_KEY: chain.accounts[0] as Hex });
  await stack.untilServing();
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await stack.stop();
  await chain?.stop();
  await new Promise<void>((resolve) => (pageServer ? pageServer.close(() => resolve()) : resolve()));
});

/** Opens the other origin's page; the gateway is a different origin (another port). */
async function openPage() {
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  // A CORS refusal is logged here; so is every 402, which is no error of this test's.
  page.on("console", (m) => {
    if (m.type() === "error" && !m.text().includes("status of 402")) errors.push(m.text());
  });
  await page.goto(`${pageOrigin}/`, { waitUntil: "load" });
  expect(new URL(page.url()).origin).not.toBe(new URL(stack.base).origin);
  return { page, errors };
}

describe("a page of another origin", () => {
  it("reads a 402's offers (PAYMENT-REQUIRED) and a free read's freshness headers, never an unexposed header", async () => {
    const { page, errors } = await openPage();
    const unpaid = (await page.evaluate((url) => (globalThis as unknown as { unpaid(u: string): Promise<PageRead> }).unpaid(url), `${stack.base}/api/board/regime`)) as PageRead;
    expect(unpaid.status).toBe(402);
    expect(unpaid.paymentRequired).toBeTruthy();
    const free = (await page.evaluate((url) => (globalThis as unknown as { unpaid(u: string): Promise<PageRead> }).unpaid(url), `${stack.base}/api/board/free`)) as PageRead;
    expect(free.status).toBe(200);
    expect(free.dataAge).toMatch(/^\d+$/);
    expect(free.etag).toMatch(/^W\/"/);
    // The browser enforces CORS here: Date is sent (node sees it) but not exposed to the page.
    expect((await fetch(`${stack.base}/api/board/free`)).headers.get("date")).toBeTruthy();
    expect(free.date).toBeNull();
    expect(errors).toEqual([]);
    await page.close();
  });

  it("pays a read with @x402/fetch and reads its PAYMENT-RESPONSE", async () => {
    const key = generatePrivateKey();
    const account = privateKeyToAccount(key);
    await chain.mint(account.address, 100_000n);
    const before = await chain.balanceOf(payTo);
    const { page, errors } = await openPage();
    const paid = (await page.evaluate(
      ([url, k]) => (globalThis as unknown as { payAndRead(u: string, k: string): Promise<PageRead> }).payAndRead(url, k),
      [`${stack.base}/api/board/regime`, key] as const,
    )) as PageRead;
    expect(errors).toEqual([]);
    expect(paid.status).toBe(200);
    RegimeView.parse(JSON.parse(paid.body));
    expect(paid.paymentResponse).toBeTruthy();
    const receipt = decodePaymentResponseHeader(paid.paymentResponse!);
    expect(receipt).toMatchObject({ success: true, network: "eip155:8453", payer: account.address });
    expect(receipt.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    expect(paid.dataAge).toMatch(/^\d+$/);
    expect(await chain.balanceOf(payTo)).toBe(before + 5_000n);
    expect(await chain.balanceOf(account.address)).toBe(95_000n);
    await page.close();
  });
});
