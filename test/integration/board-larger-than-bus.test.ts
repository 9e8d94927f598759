import { spawn, type ChildProcess } from "node:child_process";
import http from "node:http";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import { identityLicenseIssue } from "@board/proto";
import { encodeSnapshotMessage, request } from "@board/service-kit";
import { fixtureSnapshot, freePort, killHard, natsServerBinary, portAnswers } from "@board/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Stack, until } from "./harness.js";

// A board of thousands of names is larger as plain JSON than the bus's max_payload (1 MiB by
// default; a full board is about 490 B a name), though far smaller gzipped. The same happens here
// with the real 565 names on a bus whose max_payload is below the full board's plain size and
// above its gzip size: the reads must still be served, plain and gzipped, as the board renders them.
const MAX_PAYLOAD = 160 * 1024;
const NAMES = 565;

let nats: ChildProcess;
let natsDir: string;
let stack: Stack;
let license: string;

beforeAll(async () => {
  const bin = natsServerBinary();
  if (!bin) throw new Error("no nats-server binary (PATH or /usr/sbin/nats-server): install nats-server");
  natsDir = mkdtempSync(path.join(tmpdir(), "test-nats-small-payload-"));
  const port = await freePort();
  writeFileSync(path.join(natsDir, "nats.conf"), `host: 127.0.0.1\nport: ${port}\nmax_payload: ${MAX_PAYLOAD}\njetstream { store_dir: "${path.join(natsDir, "js")}" }\n`);
  nats = spawn(bin, ["-c", path.join(natsDir, "nats.conf")], { stdio: "ignore" });
  await until(() => portAnswers(port));
  stack = new Stack();
  await stack.start({ natsUrl: `nats://127.0.0.1:${port}` });
  await stack.startBoard();
  // Snapshots cross gzipped, as the scanner sends them (the plain ones would not fit either).
  for (const s of [
    fixtureSnapshot({ asofDaily: "2026-11-19", computedAt: "2026-11-19T13:00:00-08:00", seed: 1, names: NAMES }),
    fixtureSnapshot({ asofDaily: "2026-11-20", computedAt: "2026-11-20T09:55:00-08:00", seed: 2, intraday: true, names: NAMES }),
  ]) {
    const { data, headers } = encodeSnapshotMessage(new TextEncoder().encode(JSON.stringify(s)));
    await stack.nc.jetstream().publish("board.snapshots.v1", data, { headers });
  }
  await stack.untilServing();
  ({ key: license } = await request(stack.nc, identityLicenseIssue, { kind: "scanner", period: "monthly", holder: "larger than the bus" }, { timeoutMs: 5000 }));
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  if (nats) await killHard(nats);
  if (natsDir) rmSync(natsDir, { recursive: true, force: true });
});

/** A read's bytes, as sent (node:http: no decompression by the client). */
function read(pathname: string, headers: Record<string, string>) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
    http
      .get(`${stack.base}${pathname}`, { headers: { "x-license-key": license, ...headers } }, (r) => {
        const chunks: Buffer[] = [];
        r.on("data", (c: Buffer) => chunks.push(c)).on("end", () => resolve({ status: r.statusCode ?? 0, headers: r.headers, body: Buffer.concat(chunks) }));
      })
      .on("error", reject);
  });
}

/** The view without its per-read freshness block. */
const content = (json: Buffer) => {
  const { freshness: _freshness, ...rest } = JSON.parse(json.toString("utf8")) as Record<string, unknown>;
  return rest;
};

describe("a board larger than the bus's max_payload as plain JSON", () => {
  it("is served plain (carried gzipped over the bus and inflated once), the same content as the gzip read, again and again", async () => {
    const zipped = await read("/api/board/agent", { "accept-encoding": "gzip" });
    expect(zipped.status).toBe(200);
    expect(zipped.headers["content-encoding"]).toBe("gzip");
    expect(zipped.body.length).toBeLessThan(MAX_PAYLOAD);
    const plain = await read("/api/board/agent", { "accept-encoding": "identity" });
    expect(plain.status).toBe(200);
    expect(plain.headers["content-encoding"]).toBeUndefined();
    // The premise: the plain board could not have crossed this bus.
    expect(plain.body.length).toBeGreaterThan(MAX_PAYLOAD);
    expect(plain.headers.etag).toBe(zipped.headers.etag);
    expect(content(plain.body)).toEqual(content(gunzipSync(zipped.body)));
    expect((content(plain.body) as { names: unknown[] }).names).toHaveLength(NAMES);
    // Later reads come from the gateway's kept bytes with this read's freshness.
    for (let i = 0; i < 3; i++) {
      const again = await read("/api/board/agent", { "accept-encoding": "identity" });
      expect(again.status).toBe(200);
      expect(content(again.body)).toEqual(content(plain.body));
      expect(JSON.parse(again.body.toString("utf8"))).toHaveProperty("freshness");
    }
  });

  it("serves the delayed board whole over MCP (the previous trading day's every name)", async () => {
    const r = await fetch(`${stack.base}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "get_delayed_board", arguments: {} } }),
    });
    expect(r.status).toBe(200);
    const text = await r.text();
    expect(text.length, text.slice(0, 400)).toBeGreaterThan(MAX_PAYLOAD);
    const reply = JSON.parse(text) as { result: { isError?: boolean; structuredContent: { asof_daily: string; names: unknown[] } } };
    expect(reply.result.isError).not.toBe(true);
    expect(reply.result.structuredContent.asof_daily).toBe("2026-11-19");
    expect(reply.result.structuredContent.names).toHaveLength(NAMES);
  });
});
