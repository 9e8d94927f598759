import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { pingEndpoint } from "@board/proto";
import { request } from "@board/service-kit";
import { killHard, TestNatsServer } from "@board/service-kit/testing";
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { x402Client } from "@x402/fetch";
import { encodeAbiParameters, encodeFunctionData, parseAbi, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Stack, until } from "./harness.js";

// RPC URLs carry the provider's API key; viem puts the URL in its errors. Payments runs as a
// process of its own with its Base rail on an RPC URL holding a generated key, whose node
// answers what the rail's start-up check reads (Base's chain id, the token's code and domain,
// the facilitator's gas) and fails everything else: a paid read then makes payments log the
// chain's failures, and nothing it wrote may hold the URL or the key.
// Its own nats-server: no other file's payments may answer this stack's requests.

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const apiKey = randomBytes(24).toString("base64url");
const stack = new Stack();
let nats: TestNatsServer | null = null;
let rpc: http.Server;
let rpcUrl = "";
let payments: ChildProcess | null = null;
let logs = "";
const rpcCalls: string[] = [];
/** Calls the node failed (HTTP 500). */
let rpcFailures = 0;

/** What the start-up check reads of the token, by the call's data: USDC's name and version (no EIP-5267 domain, no separator). */
const TOKEN_VIEWS = new Map<string, Hex>([
  [encodeFunctionData({ abi: parseAbi(["function name() view returns (string)"]), functionName: "name" }), encodeAbiParameters([{ type: "string" }], ["USD Coin"])],
  [encodeFunctionData({ abi: parseAbi(["function version() view returns (string)"]), functionName: "version" }), encodeAbiParameters([{ type: "string" }], ["2"])],
]);

/** The result of a call the node answers, or null: it answers HTTP 500. */
function answer(call: { method?: string; params?: unknown[] }): string | null {
  switch (call.method) {
    case "eth_chainId":
      return "0x2105";
    case "eth_getCode":
      return "0x6080604052";
    case "eth_getBalance":
      return "0xde0b6b3a7640000"; // 1 ETH
    case "eth_gasPrice":
      return "0x3b9aca00";
    case "eth_call": {
      const data = (call.params?.[0] as { data?: string } | undefined)?.data ?? "";
      // Views the token lacks answer nothing; the settlement's simulation, like everything else, fails.
      if (TOKEN_VIEWS.has(data)) return TOKEN_VIEWS.get(data)!;
      return data.startsWith("0x84b0196e") || data.startsWith("0x3644e515") ? "0x" : null;
    }
    default:
      return null;
  }
}

/** A node that says it is Base with a token contract (what the start-up check reads), and answers any other call HTTP 500. */
function startRpc(): Promise<void> {
  rpc = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      let call: { id?: unknown; method?: string; params?: unknown[] } = {};
      try {
        call = JSON.parse(body) as typeof call;
      } catch {
        // A batch or garbage: failed like the rest.
      }
      rpcCalls.push(call.method ?? "?");
      const result = answer(call);
      if (result !== null) res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id: call.id, result }));
      else {
        rpcFailures++;
        res.writeHead(500, { "content-type": "application/json" }).end('{"error":"internal error"}');
      }
    });
  });
  return new Promise((resolve) =>
    rpc.listen(0, "127.0.0.1", () => {
      rpcUrl = `http://127.0.0.1:${(rpc.address() as AddressInfo).port}/v2/${apiKey}`;
      resolve();
    }),
  );
}

beforeAll(async () => {
  nats = await TestNatsServer.start();
  await startRpc();
  await stack.start({ natsUrl: nats.url, natsSeeds: nats.seeds });
  await stack.startBoard();
  await stack.publishTwoDays();
  payments = spawn(process.execPath, ["--import", "tsx", "services/payments/src/main.ts"], {
    cwd: ROOT,
    env: {
      ...stack.busEnv("payments"),
      DATABASE_URL: stack.databaseUrl,
      HEALTH_PORT: "0",
      LOG_LEVEL: "debug",
      LOG_FORMAT: "json",
      PUBLIC_BASE_URL: stack.base,
      RECEIPT_SECRET: stack.receiptSecret,
      INSTANCE_ID: "payments-rpc-logs",
      PAYMENTS_MODE: "development",
      PAY_TO_BASE: privateKeyToAccount(generatePrivateKey()).address,
      BASE_RPC_URL: rpcUrl,
      BASE_FACILITATOR_KEY: generatePrivateKey(),
      RECONCILE_AFTER_SECONDS: "1",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  payments.stdout?.on("data", (d: Buffer) => (logs += d.toString()));
  payments.stderr?.on("data", (d: Buffer) => (logs += d.toString()));
  await until(async () => {
    if (payments?.exitCode !== null) throw new Error(`payments exited: ${logs.slice(-2000)}`);
    return request(stack.nc, pingEndpoint("payments"), {}, { timeoutMs: 500 }).then(
      (r) => r.instance === "payments-rpc-logs",
      () => false,
    );
  }, 30_000);
  await stack.untilServing();
}, 90_000);

afterAll(async () => {
  if (payments) await killHard(payments);
  await stack.stop();
  await new Promise<void>((resolve) => rpc.close(() => resolve()));
  await nats?.stop();
});

describe("payments' logs when the RPC fails", () => {
  it("name the failure by its reason code and never hold the RPC URL or its key", async () => {
    const route = "/api/board/regime";
    // The first 402 of a fresh process may outlast the gateway's bus timeout (modules load on first use).
    let res = await fetch(`${stack.base}${route}`);
    for (let i = 0; i < 5 && res.status === 504; i++) res = await fetch(`${stack.base}${route}`);
    expect(res.status).toBe(402);
    const pr = decodePaymentRequiredHeader(res.headers.get("payment-required")!);
    pr.accepts = pr.accepts.filter((a) => a.network === "eip155:8453" && a.extra?.["name"] !== "GatewayWalletBatched").slice(0, 1);
    expect(pr.accepts).toHaveLength(1);
    const payload = await new x402Client().register("eip155:*", new ExactEvmScheme(privateKeyToAccount(generatePrivateKey()))).createPaymentPayload(pr);
    const failedBefore = rpcFailures;
    const paid = await fetch(`${stack.base}${route}`, { headers: { "payment-signature": encodePaymentSignatureHeader(payload) } });
    // Nothing is sold while the chain cannot be asked.
    expect(paid.status).not.toBe(200);
    await paid.arrayBuffer();

    // The chain was asked for the read, and failed, and payments said so.
    await until(() => rpcFailures > failedBefore && /"level":(40|50)/.test(logs.split("payment rails at start")[1] ?? ""), 15_000);
    const failures = logs
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l) as { level: number; msg: string; reason?: string })
      .filter((l) => l.level >= 40 && /verification unavailable|settlement|reconciliation/.test(l.msg));
    expect(failures.length).toBeGreaterThan(0);
    expect(logs).not.toContain(apiKey);
    expect(logs).not.toContain(rpcUrl);
    expect(logs).not.toContain("/v2/");
    for (const line of failures) expect(line.reason, JSON.stringify(line)).toMatch(/^[a-z][a-z0-9_]+$/);
  });
});
