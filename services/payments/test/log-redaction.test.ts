import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import { createLogger, serializeError } from "@board/service-kit";
import { createPublicClient, http as viemHttp, HttpRequestError } from "viem";
import { base } from "viem/chains";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// viem's errors carry the RPC URL (and so the provider's API key in it) in their message,
// shortMessage, details, metaMessages, url and causes: the log serializer strips them all.

let server: http.Server;
let rpcUrl = "";
const apiKey = randomBytes(24).toString("base64url");

beforeAll(async () => {
  // An RPC that fails every call.
  server = http.createServer((req, res) => {
    req.resume();
    res.writeHead(500, { "content-type": "application/json" }).end('{"error":"internal error"}');
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  rpcUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v2/${apiKey}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** A logger writing into a string. */
function captured() {
  let text = "";
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      text += chunk.toString();
      done();
    },
  });
  return { log: createLogger("payments", "debug", "test", sink), text: () => text };
}

/** A real error of a failed viem call to the RPC. */
async function viemFailure(): Promise<unknown> {
  const client = createPublicClient({ chain: base, transport: viemHttp(rpcUrl, { retryCount: 0 }) });
  return client.getChainId().then(
    () => expect.unreachable("the RPC answers 500"),
    (err: unknown) => err,
  );
}

describe("the log serializer", () => {
  it("strips the RPC URL and its key from a real viem HttpRequestError, whatever key it is logged under", async () => {
    const err = await viemFailure();
    let found: unknown = err;
    while (found && !(found instanceof HttpRequestError)) found = (found as { cause?: unknown }).cause;
    expect(found).toBeInstanceOf(HttpRequestError);
    // Without the serializer, the key is in the error as viem makes it.
    expect(JSON.stringify({ message: (err as Error).message, url: (found as HttpRequestError).url })).toContain(apiKey);

    const { log, text } = captured();
    log.warn({ err }, "payment verification unavailable");
    log.warn({ error: found, rail: "base" }, "reconciliation failed");
    log.error(err as Error, `the chain could not be asked: ${(err as Error).message}`);
    log.warn({ url: rpcUrl, urls: [rpcUrl] }, "rpc down");
    const lines = text();
    expect(lines.split("\n").filter(Boolean)).toHaveLength(4);
    expect(lines).not.toContain(apiKey);
    expect(lines).not.toContain(rpcUrl);
    expect(lines).not.toContain("/v2/");
    // What is left still says what failed.
    const first = JSON.parse(lines.split("\n")[0]!) as { err: { type: string; message: string } };
    expect(first.err.type).toBe((err as Error).name);
    expect(first.err.message).toContain("[url]");
  });

  it("follows nested causes and strips viem's details, shortMessage and metaMessages", () => {
    // A provider whose error text echoes the path it was asked on (and so the key, without a scheme).
    const inner = new HttpRequestError({ url: rpcUrl, status: 502, body: { method: "eth_call" }, details: `no such project: /v2/${apiKey}` });
    const outer = new Error(`settlement not sent: ${inner.shortMessage}`, { cause: new Error("wrapped", { cause: inner }) });
    const out = JSON.stringify(serializeError(outer));
    expect(out).not.toContain(apiKey);
    expect(out).toContain("HttpRequestError");
    const wsErr = Object.assign(new Error(`socket closed: wss://example.invalid/ws/${apiKey}`), { metaMessages: [`URL: wss://example.invalid/ws/${apiKey}`] });
    expect(JSON.stringify(serializeError(wsErr))).not.toContain(apiKey);
  });
});
