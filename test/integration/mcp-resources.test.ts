import { MCP_RESOURCES, VIEW_SCHEMAS, type McpResource } from "@board/proto";
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import http from "node:http";
import { fileURLToPath } from "node:url";
import { fixtureSnapshot, freePort, killHard } from "@board/service-kit/testing";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ResourceUpdatedNotificationSchema, type CallToolResult, type ReadResourceResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GatewayEnv } from "../../services/gateway/src/env.js";
import { startGateway, type GatewayService } from "../../services/gateway/src/start.js";
import { Stack, until } from "./harness.js";

// The free views as MCP resources, with the MCP SDK client against a board and gateways on the
// real bus and Postgres: listed and read with or without a session; a session subscribes and
// hears of each board published (the same bus event as /api/board/events) within 1 s, then
// reads the new content. Sessions: their caps per client address and per replica, idling,
// DELETE, and what a second replica does with a session it does not hold; 1,000 listening
// sessions on one gateway process, with its memory measured.

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

const stack = new Stack();
/** A second gateway replica with small caps and a short idle time; it trusts one proxy hop, so X-Forwarded-For stands for distinct client addresses. */
let small: GatewayService;
let smallBase = "";
const SMALL = { perClient: 2, total: 3, idleSeconds: 2 };
const clients = new Set<Client>();

beforeAll(async () => {
  await stack.start();
  await stack.startBoard();
  await stack.publishTwoDays();
  await stack.untilServing();
  const port = await freePort();
  smallBase = `http://127.0.0.1:${port}`;
  small = await startGateway(
    GatewayEnv.parse({
      ...stack.busEnv("gateway"),
      PORT: port,
      HOST: "127.0.0.1",
      HEALTH_PORT: 0,
      LOG_LEVEL: "warn",
      PUBLIC_BASE_URL: smallBase,
      TRUST_PROXY_HOPS: 1,
      MCP_MAX_SESSIONS_PER_CLIENT: SMALL.perClient,
      MCP_MAX_SESSIONS: SMALL.total,
      MCP_SESSION_IDLE_SECONDS: SMALL.idleSeconds,
    }),
  );
}, 90_000);

afterAll(async () => {
  for (const c of clients) await c.close().catch(() => undefined);
  await small?.stop();
  await stack.stop();
});

/** An MCP SDK client on `base`/mcp (its transport kept, for the session id). */
async function connect(base = stack.base, headers: Record<string, string> = {}) {
  const client = new Client({ name: "board-resources-test", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers } });
  await client.connect(transport);
  clients.add(client);
  return { client, transport };
}

/** A gauge of a gateway's /metrics, read in-process. */
async function gauge(name: string, gateway: GatewayService = stack.gateway): Promise<number> {
  const metric = gateway.runtime.metrics.registry.getSingleMetric(name);
  const sample = (await metric?.get())?.values[0];
  return sample?.value ?? NaN;
}

const rpc = (method: string, params: Record<string, unknown> = {}, id = 1) => JSON.stringify({ jsonrpc: "2.0", id, method, params });
const INITIALIZE = rpc("initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } });
const JSON_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };
const post = (base: string, body: string, headers: Record<string, string> = {}) => fetch(`${base}/mcp`, { method: "POST", headers: { ...JSON_HEADERS, ...headers }, body });

/** Boards after the harness's two days: `day`'s board at 09:55 plus `minutes`, each going live. */
async function publishBoard(asofDaily: string, minutes: number, seed: number) {
  const computedAt = new Date(Date.parse(`${asofDaily}T09:55:00-08:00`) + minutes * 60_000).toISOString().replace(/\.\d{3}Z$/, "Z");
  const snapshot = fixtureSnapshot({ asofDaily, computedAt, seed, intraday: true });
  const at = performance.now();
  await stack.publish(snapshot);
  return { snapshot, at };
}

const bodyOf = (result: ReadResourceResult) => {
  const [first] = result.contents;
  if (!first || !("text" in first)) throw new Error("expected text contents");
  return JSON.parse(first.text) as Record<string, unknown>;
};
const textOf = (r: CallToolResult) => (r.content[0]?.type === "text" ? r.content[0].text : "");

describe("the free views as MCP resources", () => {
  it("a session: resources.subscribe declared, an Mcp-Session-Id, the four free views with stable URIs and MIME types, each read as its view's body", async () => {
    const { client, transport } = await connect();
    expect(client.getServerCapabilities()?.resources).toEqual({ subscribe: true, listChanged: false });
    expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    const { resources } = await client.listResources();
    expect(resources).toEqual(MCP_RESOURCES.map((r) => ({ uri: r.uri, name: r.name, title: r.title, description: r.description, mimeType: "application/json" })));
    expect(resources.map((r) => r.uri)).toEqual(["board://delayed", "board://free", "board://symbols", "board://state"]);
    for (const resource of MCP_RESOURCES) {
      const read = await client.readResource({ uri: resource.uri });
      expect(read.contents).toHaveLength(1);
      expect(read.contents[0]).toMatchObject({ uri: resource.uri, mimeType: "application/json" });
      const parsed = VIEW_SCHEMAS[resource.view].safeParse(bodyOf(read));
      expect(parsed.success, `${resource.uri}: ${parsed.error?.message ?? ""}`).toBe(true);
    }
    // The same read as the free tool of the same view.
    const delayed = bodyOf(await client.readResource({ uri: "board://delayed" }));
    const tool = JSON.parse(textOf((await client.callTool({ name: "get_delayed_board" })) as CallToolResult)) as Record<string, unknown>;
    expect(delayed.asof_daily).toBe(tool.asof_daily);
    expect(delayed.names).toEqual(tool.names);
    await expect(client.readResource({ uri: "board://agent" })).rejects.toThrow(/There is no resource board:\/\/agent/);
    await expect(client.subscribeResource({ uri: "board://nothing" })).rejects.toThrow(/There is no resource/);
  });

  it("without a session (a host that never initializes): resources are listed and read on their own", async () => {
    const list = await post(stack.base, rpc("resources/list"));
    expect(list.status).toBe(200);
    expect(list.headers.get("mcp-session-id")).toBeNull();
    const listed = ((await list.json()) as { result: { resources: McpResource[] } }).result.resources;
    expect(listed.map((r) => r.uri)).toEqual(MCP_RESOURCES.map((r) => r.uri));
    const read = await post(stack.base, rpc("resources/read", { uri: "board://state" }));
    const body = JSON.parse(((await read.json()) as { result: { contents: { text: string }[] } }).result.contents[0]!.text) as { snapshot: string };
    expect(body.snapshot).toMatch(/^[0-9a-f]{64}$/);
    // Nothing would be there to notify: subscribing needs a session.
    const sub = (await (await post(stack.base, rpc("resources/subscribe", { uri: "board://state" }))).json()) as { error?: { code: number } };
    expect(sub.error?.code).toBe(-32601);
  });

  it("a subscribed session hears of each board published within 1 s, only for the resources it changed, and reads the new content", async () => {
    const { client } = await connect();
    const heard: { uri: string; at: number }[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void heard.push({ uri: n.params.uri, at: performance.now() }));
    await client.subscribeResource({ uri: "board://state" });
    await client.subscribeResource({ uri: "board://delayed" });
    // The client opens its GET stream after initializing: wait for it, or a notification has nowhere to go.
    await until(async () => (await gauge("mcp_session_streams_open")) >= 1);
    const before = bodyOf(await client.readResource({ uri: "board://delayed" }));
    expect(before.asof_daily).toBe("2026-11-19");

    const latencies: number[] = [];
    // A new trading day: the state and the delayed board (now the 20th's) both change.
    const monday = await publishBoard("2026-11-23", 0, 11);
    await until(() => heard.length >= 2, 5000);
    expect(heard.map((h) => h.uri).sort()).toEqual(["board://delayed", "board://state"]);
    latencies.push(...heard.map((h) => h.at - monday.at));
    const state = bodyOf(await client.readResource({ uri: "board://state" }));
    expect(state.asof_daily).toBe("2026-11-23");
    expect(bodyOf(await client.readResource({ uri: "board://delayed" })).asof_daily).toBe("2026-11-20");

    // Intraday boards of the same day: the state changes with each, the delayed board with none.
    for (let i = 1; i <= 5; i++) {
      heard.length = 0;
      const board = await publishBoard("2026-11-23", 5 * i, 11 + i);
      await until(() => heard.length >= 1, 5000);
      latencies.push(heard[0]!.at - board.at);
      await new Promise((r) => setTimeout(r, 300));
      expect(heard.map((h) => h.uri)).toEqual(["board://state"]);
      const now = bodyOf(await client.readResource({ uri: "board://state" }));
      expect(now.computed_at).not.toBe(state.computed_at);
      expect(Date.parse(String(now.computed_at))).toBe(Date.parse(board.snapshot.board.computed_at));
    }
    latencies.sort((a, b) => a - b);
    console.log(
      `[mcp-resources] JetStream publish -> notifications/resources/updated at the SDK client, ${latencies.length} notifications: ` +
        `min ${latencies[0]!.toFixed(0)} ms, median ${latencies[Math.floor(latencies.length / 2)]!.toFixed(0)} ms, max ${latencies.at(-1)!.toFixed(0)} ms`,
    );
    for (const ms of latencies) expect(ms).toBeLessThan(1000);

    // Unsubscribed: nothing more.
    await client.unsubscribeResource({ uri: "board://state" });
    heard.length = 0;
    await publishBoard("2026-11-23", 40, 30);
    await new Promise((r) => setTimeout(r, 1500));
    expect(heard).toEqual([]);
  }, 60_000);
});

describe("MCP sessions", () => {
  it("an id this replica does not hold is 404 (another replica's, or an ended one); a new initialize opens a new session", async () => {
    const { client, transport } = await connect();
    const id = transport.sessionId!;
    // The same session id at another replica: 404, as MCP's transport says for a session the server does not know.
    const elsewhere = await post(smallBase, rpc("tools/list"), { "mcp-session-id": id, "mcp-protocol-version": "2025-06-18" });
    expect(elsewhere.status).toBe(404);
    expect(((await elsewhere.json()) as { error: { code: number } }).error.code).toBe(-32001);
    // DELETE ends it: its id meets 404 from then on; a new initialize opens a new session.
    await transport.terminateSession();
    const ended = await post(stack.base, rpc("tools/list"), { "mcp-session-id": id, "mcp-protocol-version": "2025-06-18" });
    expect(ended.status).toBe(404);
    await client.close();
    const again = await connect();
    expect(again.transport.sessionId).not.toBe(id);
    expect((await again.client.listTools()).tools.length).toBeGreaterThan(0);
  });

  it("GET and DELETE need a session's id; a raw initialize gets one, which its requests then carry", async () => {
    for (const method of ["GET", "DELETE"]) {
      const res = await fetch(`${stack.base}/mcp`, { method, headers: { accept: "text/event-stream" } });
      expect(res.status, method).toBe(400);
      expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/Mcp-Session-Id header is required/);
    }
    const init = await post(stack.base, INITIALIZE);
    expect(init.status).toBe(200);
    const id = init.headers.get("mcp-session-id")!;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(init.headers.get("access-control-expose-headers")).toContain("Mcp-Session-Id");
    const tools = await post(stack.base, rpc("tools/list", {}, 2), { "mcp-session-id": id, "mcp-protocol-version": "2025-06-18" });
    expect(tools.status).toBe(200);
    expect(((await tools.json()) as { result: { tools: unknown[] } }).result.tools.length).toBeGreaterThan(0);
    expect((await fetch(`${stack.base}/mcp`, { method: "DELETE", headers: { "mcp-session-id": id, "mcp-protocol-version": "2025-06-18" } })).status).toBe(200);
  });

  it("caps sessions per client address and per replica; past a cap an initialize is answered without a session, and tools still work", async () => {
    const from = (address: string) => ({ "x-forwarded-for": address });
    const a1 = await connect(smallBase, from("10.0.0.1"));
    const a2 = await connect(smallBase, from("10.0.0.1"));
    expect([a1.transport.sessionId, a2.transport.sessionId].every(Boolean)).toBe(true);
    // The client address's cap: a third initialize from it gets no session, no subscriptions, and its tools.
    const a3 = await connect(smallBase, from("10.0.0.1"));
    expect(a3.transport.sessionId).toBeUndefined();
    expect(a3.client.getServerCapabilities()?.resources?.subscribe).toBe(false);
    expect(((await a3.client.callTool({ name: "get_board_state" })) as CallToolResult).isError).toBeFalsy();
    // The replica's cap: another address has one session, and then none either.
    const b1 = await connect(smallBase, from("10.0.0.2"));
    expect(b1.transport.sessionId).toBeDefined();
    const b2 = await connect(smallBase, from("10.0.0.2"));
    expect(b2.transport.sessionId).toBeUndefined();
    expect(await gauge("mcp_sessions_open", small)).toBe(SMALL.total);
    // A session ended gives its slot back.
    await a1.transport.terminateSession();
    const a4 = await connect(smallBase, from("10.0.0.1"));
    expect(a4.transport.sessionId).toBeDefined();
    for (const c of [a1, a2, a3, a4, b1, b2]) {
      if (c.transport.sessionId) await c.transport.terminateSession();
      await c.client.close();
    }
    await until(async () => (await gauge("mcp_sessions_open", small)) === 0);
  });

  it("a session with no request and no GET stream ends once idle; one holding its GET stream does not", async () => {
    const listening = await connect(smallBase, { "x-forwarded-for": "10.0.0.3" });
    await until(async () => (await gauge("mcp_session_streams_open", small)) === 1);
    const init = await post(smallBase, INITIALIZE, { "x-forwarded-for": "10.0.0.4" });
    const idle = init.headers.get("mcp-session-id")!;
    expect(idle).toBeTruthy();
    await new Promise((r) => setTimeout(r, (SMALL.idleSeconds + 1.5) * 1000));
    const gone = await post(smallBase, rpc("tools/list"), { "mcp-session-id": idle, "mcp-protocol-version": "2025-06-18", "x-forwarded-for": "10.0.0.4" });
    expect(gone.status).toBe(404);
    expect(((await listening.client.listResources()).resources.length)).toBe(MCP_RESOURCES.length);
    await listening.transport.terminateSession();
    await listening.client.close();
  }, 20_000);
});

/** A process's RSS in MB. */
function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Math.round(Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) / 1024);
}

/** A gauge of a gateway process's /metrics. */
async function scraped(name: string, healthPort: number): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${healthPort}/metrics`)).text();
  const line = text.split("\n").find((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`));
  return line ? Number(line.split(" ").pop()) : NaN;
}

/** A raw session: initialized, subscribed to board://state, its GET stream open and read; `heard` is when the update arrived. */
async function rawSession(base: string) {
  const init = await post(base, INITIALIZE);
  const id = init.headers.get("mcp-session-id")!;
  await init.arrayBuffer();
  const headers = { "mcp-session-id": id, "mcp-protocol-version": "2025-06-18" };
  await (await post(base, JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }), headers)).arrayBuffer();
  await (await post(base, rpc("resources/subscribe", { uri: "board://state" }, 2), headers)).arrayBuffer();
  const session = { id, heard: null as number | null, req: null as http.ClientRequest | null };
  await new Promise<void>((resolve, reject) => {
    session.req = http.get(`${base}/mcp`, { headers: { ...headers, accept: "text/event-stream" }, agent: false }, (res) => {
      if (res.statusCode !== 200) reject(new Error(`GET ${res.statusCode}`));
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        if (chunk.includes("notifications/resources/updated") && session.heard === null) session.heard = performance.now();
      });
      resolve();
    });
    session.req.on("error", () => undefined);
  });
  return session;
}

/**
 * How long the gateway is left idle before its RSS is read: it runs with --expose-gc, as in its
 * image, so its idle collections (service-kit's idle-collector, up to 16 s after the first) give
 * back what opening the sessions left behind, and what remains is what they hold.
 */
const SETTLE_MS = 20_000;

describe("1,000 listening sessions on one gateway process", () => {
  let child: ChildProcess | null = null;
  afterAll(async () => {
    if (child) await killHard(child);
  });

  it("holds them, notifies all of a publication, and its memory is measured", async () => {
    const port = await freePort();
    const healthPort = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const N = 1000;
    child = spawn(process.execPath, ["--expose-gc", "--import", "tsx", "services/gateway/src/main.ts"], {
      cwd: ROOT,
      env: {
        ...stack.busEnv("gateway"),
        PORT: String(port),
        HOST: "127.0.0.1",
        HEALTH_PORT: String(healthPort),
        LOG_LEVEL: "warn",
        PUBLIC_BASE_URL: base,
        MCP_MAX_SESSIONS_PER_CLIENT: String(N + 10),
        MCP_MAX_SESSIONS: String(N + 10),
      },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr?.on("data", (d: Buffer) => (stderr = (stderr + d.toString()).slice(-2000)));
    await until(async () => {
      if (child!.exitCode !== null) throw new Error(`the gateway exited: ${stderr}`);
      return (await fetch(`${base}/api/board/state`).catch(() => null))?.status === 200;
    }, 30_000);
    // Warm: a session and a few calls, so the baseline has the MCP code loaded.
    const warm = await rawSession(base);
    for (let i = 0; i < 20; i++) await (await post(base, rpc("tools/call", { name: "get_board_state", arguments: {} }))).arrayBuffer();
    warm.req!.destroy();
    await (await fetch(`${base}/mcp`, { method: "DELETE", headers: { "mcp-session-id": warm.id, "mcp-protocol-version": "2025-06-18" } })).arrayBuffer();
    await until(async () => (await scraped("mcp_sessions_open", healthPort)) === 0);
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    const before = rssOf(child.pid!);

    const sessions: Awaited<ReturnType<typeof rawSession>>[] = [];
    for (let i = 0; i < N; i += 50) sessions.push(...(await Promise.all(Array.from({ length: Math.min(50, N - i) }, () => rawSession(base)))));
    await until(async () => (await scraped("mcp_session_streams_open", healthPort)) === N, 30_000);
    expect(await scraped("mcp_sessions_open", healthPort)).toBe(N);
    const opened = rssOf(child.pid!);
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    const held = rssOf(child.pid!);

    const board = await publishBoard("2026-11-23", 60, 40);
    await until(() => sessions.every((s) => s.heard !== null), 15_000);
    const arrivals = sessions.map((s) => s.heard! - board.at);
    const after = rssOf(child.pid!);
    console.log(
      `[mcp-resources] gateway process RSS at rest: ${before} MB before, ${held} MB with ${N} sessions each holding its GET stream (+${held - before} MB, ~${(((held - before) * 1024) / N).toFixed(1)} KB a session; ${opened} MB just after opening them), ` +
        `${after} MB after one publication; JetStream publish -> notification at all ${N}: first ${Math.min(...arrivals).toFixed(0)} ms, last ${Math.max(...arrivals).toFixed(0)} ms`,
    );
    // Bounds from measured spreads, with a stated margin (a figure asserted at its measured value
    // fails half the runs). Measured 2026-11-27 on a 2-core, 24 GiB CI machine of this project,
    // shared with other agents' builds and tests (load 11 to 17 in most runs):
    // - memory held (held - before): Node 20: +24, +24, +25, +26, +63, +67 MB; Node 26
    //   (test:shipped-node): +55, -5, -9 MB (its baseline keeps pooled pages: 155 to 198 MB); once
    //   +127 MB in a clean-clone CI run, as just after opening (+55 to +114 MB here) when the idle
    //   collections had not yet run. Bound 160 MB: 1.25x the highest seen, 2.4x the highest here;
    //   it still fails a leak of a board-sized copy (250 KB and more) per session.
    // - publish -> notification at all 1000, the last: 597 ms on a quiet machine (load 0.7); 515 to
    //   3,384 ms under the other agents' load (it failed 3,000 once). Bound 6,000 ms: 10x the quiet
    //   figure, 1.8x the worst loaded one; widened for that load, CI's own runs are quieter.
    expect(held - before).toBeLessThan(160);
    expect(Math.max(...arrivals)).toBeLessThan(6000);
    for (const s of sessions) s.req!.destroy();
  }, 240_000);
});
