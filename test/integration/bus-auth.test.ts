import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { BOARD_EVENTS_PATH, BoardPublishedEvent, BUS_GRANTS, BUS_STREAMS, identityLicenseIssue, identityLicenseList, inboxPrefixOf, pingEndpoint, SERVICE_NAMES, type BusPrincipal } from "@board/proto";
import { BUS_STREAM_CONFIGS, ensureBusStreams, request } from "@board/service-kit";
import { busOptionsOf, fixtureSnapshot, TestNatsServer } from "@board/service-kit/testing";
import { startEvmChain, type EvmChain } from "@board/test-chains/evm";
import { x402Client } from "@x402/core/client";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { wrapFetchWithPayment } from "@x402/fetch";
import { connect, nkeyAuthenticator, nkeys, type NatsConnection } from "nats";
import type { Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ScannerEnv } from "../../services/scanner-ingest/src/env.js";
import { startScanner, type ScannerService } from "../../services/scanner-ingest/src/start.js";
import { Stack } from "./harness.js";

const dir = mkdtempSync(path.join(tmpdir(), "bus-auth-"));
/** A private nats-server with authorization on, configured by the same renderer deployments use; it logs each permission violation with the client's name. */
let server: TestNatsServer | null = null;
let url = "";
let chain: EvmChain;
const stack = new Stack();
const opened: NatsConnection[] = [];
let scanner: ScannerService | null = null;

/** Each principal's seed on the server, and the test's own unrestricted user's. */
const seedOf = (p: BusPrincipal | "admin") => (server as TestNatsServer).seeds[p];

async function as(principal: BusPrincipal | "admin"): Promise<NatsConnection> {
  const nc = await connect(busOptionsOf(url, (server as TestNatsServer).seeds, principal));
  opened.push(nc);
  return nc;
}

/** The server's permission violations a connection reports, as "<operation> <subject>" (publish, subscription). */
function violations(nc: NatsConnection): string[] {
  const seen: string[] = [];
  void (async () => {
    for await (const s of nc.status()) {
      const ctx = (s as { permissionContext?: { operation: string; subject: string } }).permissionContext;
      if (s.type === "error" && ctx) seen.push(`${ctx.operation} ${ctx.subject}`);
    }
  })();
  return seen;
}

const until = async (cond: () => boolean, ms = 5000) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 25));
  }
};

beforeAll(async () => {
  server = await TestNatsServer.start();
  url = server.url;
  chain = await startEvmChain({ accounts: 3 });
  const natsSeeds = Object.fromEntries([...SERVICE_NAMES, "admin" as const].map((p) => [p, seedOf(p)]));
  await stack.start({ natsUrl: url, natsSeeds });
  await stack.startBoard();
  await stack.publishTwoDays();
  await stack.startPayments({ PAY_TO_BASE: privateKeyToAccount(generatePrivateKey()).address, BASE_RPC_URL: chain.rpcUrl, BASE_FACILITATOR_KEY: chain.accounts[0] as Hex });
  await stack.untilServing();
  // The scanner too, on its own credential: it reads its last snapshot (Direct Get) and publishes to the stream.
  scanner = await startScanner(ScannerEnv.parse({ NATS_URL: url, NATS_NKEY_SEED: seedOf("scanner-ingest"), HEALTH_PORT: 0, LOG_LEVEL: "warn" }));
  await scanner.ready;
}, 120_000);
afterAll(async () => {
  for (const nc of opened) await nc.close().catch(() => undefined);
  await scanner?.stop();
  await stack.stop();
  await chain?.stop();
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** The services that use a stream, with the streams each uses. */
const streamUsers = SERVICE_NAMES.filter((s) => BUS_GRANTS[s].streams.length > 0);

/** The bus-streams deploy step as a separate process (node --import tsx, as `npm run bus-streams` runs it) with this seed. */
function busStreamsCli(seed: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const seedFile = path.join(dir, `cli-${Math.random().toString(36).slice(2)}.nk`);
  writeFileSync(seedFile, seed, { mode: 0o600 });
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--import", "tsx", "services/identity/src/cli/bus-streams.ts"],
      { cwd: path.resolve(import.meta.dirname, "../.."), env: { NATS_URL: url, NATS_NKEY_SEED_FILE: seedFile }, timeout: 30_000 },
      (err, stdout, stderr) => resolve({ code: err ? Number((err as { code?: unknown }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe("the bus with authorization on (nkeys, permissions from proto's BUS_GRANTS)", () => {
  it("no service may widen its stream: metering's, board's, scanner-ingest's and the gateway's updates adding identity.v1.> and payments.v1.> are refused, and the stream is unchanged", async () => {
    expect(streamUsers.sort()).toEqual(["board", "gateway", "metering", "scanner-ingest"]);
    await Promise.all(
      streamUsers.flatMap((service) =>
        BUS_GRANTS[service].streams.map(async ({ stream }) => {
          const nc = await as(service);
          const errors = violations(nc);
          const jsm = await nc.jetstreamManager({ timeout: 1500 });
          // It may read its stream's state, and nothing more.
          const before = await jsm.streams.info(stream);
          const widened = { ...before.config, subjects: [...before.config.subjects!, "identity.v1.>", "payments.v1.>"] };
          await expect(jsm.streams.update(stream, widened), `${service} updating ${stream}`).rejects.toThrow();
          await until(() => errors.includes(`publish $JS.API.STREAM.UPDATE.${stream}`));
          // Nor delete it, purge it or make it anew under its own configuration.
          await expect(jsm.streams.purge(stream)).rejects.toThrow();
          await expect(jsm.streams.delete(stream)).rejects.toThrow();
          const admin = await (await as("admin")).jetstreamManager();
          expect((await admin.streams.info(stream)).config.subjects, `${stream} after ${service}'s attempts`).toEqual(BUS_STREAM_CONFIGS[stream]!.subjects);
        }),
      ),
    );
  });

  it("no service may create a stream (one capturing identity.v1.> would hand it every licence key resolved)", async () => {
    await Promise.all(
      SERVICE_NAMES.map(async (service) => {
        const nc = await as(service);
        const errors = violations(nc);
        const jsm = await nc.jetstreamManager({ timeout: 1500, checkAPI: false });
        const name = `CAPTURE_${service.replace(/-/g, "_").toUpperCase()}`;
        await expect(jsm.streams.add({ name, subjects: [`capture.${service}.>`, "identity.v1.>"] }), service).rejects.toThrow();
        await until(() => errors.includes(`publish $JS.API.STREAM.CREATE.${name}`));
      }),
    );
    const admin = await (await as("admin")).jetstreamManager();
    const names: string[] = [];
    for await (const n of admin.streams.names()) names.push(n);
    expect(names.sort()).toEqual([...BUS_STREAMS].sort());
  });

  it("the operator's credential is the deploy step: it creates and updates every stream (ensureBusStreams, and npm run bus-streams), idempotently", async () => {
    const operator = await as("operator");
    expect(await ensureBusStreams(operator)).toEqual(BUS_STREAMS.map((stream) => ({ stream, outcome: "updated" })));
    const cli = await busStreamsCli(seedOf("operator"));
    expect(cli.code, cli.stderr).toBe(0);
    expect(cli.stdout).toBe(BUS_STREAMS.map((s) => `${s}: updated\n`).join(""));
    // A service's credential is refused, with a sentence saying why.
    const refused = await busStreamsCli(seedOf("scanner-ingest"));
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("is the credential the operator's?");
  });

  it("a connection without a credential, or with a key the server does not know, is refused", async () => {
    await expect(connect({ servers: url, reconnect: false })).rejects.toThrow(/Authorization Violation/i);
    const stranger = nkeys.createUser();
    await expect(connect({ servers: url, reconnect: false, authenticator: nkeyAuthenticator(stranger.getSeed()) })).rejects.toThrow(/Authorization Violation/i);
  });

  it("the gateway's credential cannot issue a licence: the publish is refused by the server and identity never sees it", async () => {
    const nc = await as("gateway");
    const errors = violations(nc);
    await expect(
      request(nc, identityLicenseIssue, { kind: "scanner", holder: "impostor", period: "monthly" }, { timeoutMs: 500 }),
    ).rejects.toThrow();
    await until(() => errors.includes("publish identity.v1.license_issue"));
    const operator = await as("operator");
    const listed = await request(operator, identityLicenseList, {}, { timeoutMs: 2000 });
    expect(JSON.stringify(listed)).not.toContain("impostor");
  });

  it("the gateway's credential cannot subscribe to payments.v1.> (no answering as payments, no reading its requests)", async () => {
    const nc = await as("gateway");
    const errors = violations(nc);
    const closed: unknown[] = [];
    nc.subscribe("payments.v1.>", { callback: (err) => err && closed.push(err) });
    await nc.flush();
    await until(() => errors.includes("subscription payments.v1.>") && closed.length === 1);
    // Nor another service's inbox: replies to payments are payments' alone.
    nc.subscribe(`${inboxPrefixOf("payments")}.>`, { callback: () => undefined });
    await nc.flush();
    await until(() => errors.includes(`subscription ${inboxPrefixOf("payments")}.>`));
  });

  it("the operator's credential issues a licence; it serves nothing and reads no service's requests", async () => {
    const nc = await as("operator");
    const errors = violations(nc);
    const issued = await request(nc, identityLicenseIssue, { kind: "scanner", holder: "bus-auth test", period: "monthly" }, { timeoutMs: 2000 });
    expect(issued).toMatchObject({ license: { kind: "scanner", holder: "bus-auth test" } });
    for (const s of SERVICE_NAMES) expect(await request(nc, pingEndpoint(s), {}, { timeoutMs: 2000 })).toMatchObject({ service: s });
    nc.subscribe("board.v1.>", { callback: () => undefined });
    await nc.flush();
    await until(() => errors.includes("subscription board.v1.>"));
  });

  it("every service runs on its own credential: free reads, a paid read settled on chain and a licensed read are served", async () => {
    expect((await fetch(`${stack.base}/api/board/free`)).status).toBe(200);
    const account = privateKeyToAccount(generatePrivateKey());
    await chain.mint(account.address, 1_000_000n);
    const pay = wrapFetchWithPayment(fetch, new x402Client().register("eip155:*", new ExactEvmScheme(account)));
    const paid = await pay(`${stack.base}/api/board/regime`);
    expect(paid.status).toBe(200);
    expect(paid.headers.get("payment-response")).toBeTruthy();
    const operator = await as("operator");
    const licence = (await request(operator, identityLicenseIssue, { kind: "scanner", holder: "bus-auth reader", period: "monthly" }, { timeoutMs: 2000 })) as { key: string };
    const licensed = await fetch(`${stack.base}/api/board/regime`, { headers: { "X-License-Key": licence.key } });
    expect(licensed.status).toBe(200);
    const status = (await (await fetch(`${stack.base}/api/board/status`)).json()) as Record<string, unknown>;
    expect(status).toMatchObject({ payments: expect.anything() });
  });

  it("a board's publication reaches the gateway's event stream: the board may announce it, the gateway may follow it", async () => {
    const res = await fetch(`${stack.base}${BOARD_EVENTS_PATH}`);
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    let text = "";
    const events = () => text.split("\n\n").filter((b) => b.includes("data: ")).map((b) => BoardPublishedEvent.parse(JSON.parse(b.slice(b.indexOf("data: ") + 6))));
    const readUntil = async (n: number) => {
      while (events().length < n) {
        const { done, value } = await reader.read();
        if (done) throw new Error(`the stream ended after: ${text}`);
        text += new TextDecoder().decode(value);
      }
    };
    // The current board first (the gateway asked the board for it), then the one published now.
    await readUntil(1);
    // A minute after the live board and after now (the scanner's board of now may not be live yet), so it goes live.
    const computedAt = new Date(Math.max(Date.parse(events()[0]!.computed_at), Date.now()) + 60_000).toISOString();
    await stack.publish(fixtureSnapshot({ asofDaily: events()[0]!.asof_daily, computedAt, seed: 9, intraday: true }));
    // The board may still be taking in the scanner's own boards: the stream carries those too, then ours.
    const ours = () => events().find((e) => Date.parse(e.computed_at) === Date.parse(computedAt));
    for (let n = 2; !ours(); n++) await readUntil(n);
    await reader.cancel();
    expect(ours()!.seq).toBeGreaterThan(events()[0]!.seq);
  });

  it("no service met a permission violation while serving: the server logged only this file's deliberate attempts", () => {
    const lines = (server as TestNatsServer).violations;
    expect(lines.length).toBeGreaterThan(0);
    // Services connect named "<service>:<instance>" (the server logs "<client version>:<name>"); this file's own connections are unnamed, or the bus-streams tool it ran with a service's seed.
    for (const line of lines) expect(line).toMatch(/ - "v[\d.]+:nats\.js(:bus-streams)?" - /);
  });
});
