// The stack served from its containers: the six images built from the one Dockerfile, brought
// up from docker-compose.yml by Debian's docker-compose on podman (engine.ts), and read as a
// buyer reads it: free reads, a licensed read, a paid read settled on a development chain the
// containers reach, an MCP call, /metrics. Then what the manifests promise, checked at run time,
// the memory of each container at rest and under load, and a service container killed under load.
// Figures go to .data/containers/report.json (the note of issue 20 quotes them).

import { spawnSync } from "node:child_process";
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { BoardState, BoardStatus, ErrorBody, FreeBoard, FullBoard, RegimeView, SymbolDirectory } from "@board/proto";
import { freePort } from "@board/service-kit/testing";
import { startEvmChain, type EvmChain } from "@board/test-chains/evm";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { decodePaymentResponseHeader } from "@x402/core/http";
import { wrapFetchWithPayment, x402Client } from "@x402/fetch";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import type { z } from "zod";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nameOf, podTemplate, renderOverlay } from "../deploy/manifests.js";
import { root, SERVICES } from "../deploy/tools.js";
import { startEngine, type Engine } from "./engine.js";
import { BASE_IMAGE, type ImageFigure } from "./images.js";
import { IMAGES_REPORT } from "./setup.js";

const PROJECT = "board-containers";
const WORK = path.join(root, ".data", "containers");
/** The target of issue 20: RSS per service container at rest. */
const RSS_AT_REST_MB = 150;

/** Each service's memory request in the dev overlay, in MB: what a cluster reserves for its pod. */
function memoryRequestsMb(): Record<string, number> {
  const units: Record<string, number> = { Mi: 1.048576, Gi: 1073.741824 };
  return Object.fromEntries(
    renderOverlay("dev")
      .filter((o) => o.kind === "Deployment")
      .map((d) => {
        const request = String((podTemplate(d).spec.containers as { resources: { requests: { memory: string } } }[])[0]!.resources.requests.memory);
        const [, n, unit] = /^(\d+)(Mi|Gi)$/.exec(request)!;
        return [nameOf(d), Number(n) * units[unit!]!];
      }),
  );
}
/** A killed service container is back and the reads it serves answer 200 again within this. */
const RECOVERY_MS = 60_000;
const PRICE_REGIME = 5000n;

let engine: Engine;
let chain: EvmChain;
let projectDir: string;
let base: string;
let stopHealth = () => {};
/** A scanner licence (issued in beforeAll): the load and kill tests read on it, as the free tiers are rate-limited per address. */
let licenseKey: string;
const report: {
  images?: ImageFigure[];
  rss_at_rest_mb?: Record<string, number>;
  rss_under_load_mb?: Record<string, number>;
  load?: { reads: number; served: number; limited: number; seconds: number; per_second: number };
  kill?: { service: string; restart_ms: number; reads_back_ms: number; reads: number; refused: number };
  stack_up_seconds?: number;
  heap_mb?: Record<string, { used: number; total: number }>;
} = {};

/** An address of this machine that a container reaches through its bridge (not loopback). */
function hostAddress(): string {
  for (const addrs of Object.values(os.networkInterfaces()))
    for (const a of addrs ?? []) if (a.family === "IPv4" && !a.internal) return a.address;
  throw new Error("no non-loopback IPv4 address: containers could not reach a chain on this machine");
}

const container = (service: string) => `${PROJECT}_${service}_1`;
const inspect = (name: string, format: string) => engine.podman(["inspect", "--format", format, name]).stdout.trim();
const hostPid = (service: string) => Number(inspect(container(service), "{{.State.Pid}}"));

/** Fields of /proc/<pid>/status of a container's main process, read from the host. */
function procStatus(pid: number): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of readFileSync(`/proc/${pid}/status`, "utf8").split("\n")) {
    const [key, value] = line.split(":\t");
    if (key && value !== undefined) out[key] = value.trim();
  }
  return out;
}
/** When scanner-ingest last published a snapshot (its log's time), in ms since the epoch; 0 when not in the last 10 minutes. */
function lastScanAt(): number {
  const logs = engine.podman(["logs", "--since", "10m", container("scanner-ingest")]);
  const times = [...`${logs.stdout}\n${logs.stderr}`.matchAll(/"time":"([^"]+)"[^\n]*"msg":"snapshot published"/g)].map((m) => Date.parse(m[1]!));
  return Math.max(0, ...times);
}
const rssMb = (pid: number, field: "VmRSS" | "VmHWM" = "VmRSS") => Math.round(Number.parseInt(procStatus(pid)[field]!, 10) / 1024);

const compose = (args: string[], timeoutMs = 600_000) =>
  engine.exec("docker-compose", ["--project-name", PROJECT, "-f", "docker-compose.yml", "-f", "compose.podman.yml", ...args], { cwd: projectDir, timeoutMs });

/** Where two JSON texts first differ, with a little of each around it. */
function firstDifference(a: string, b: string): string {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return `${i}: ${JSON.stringify(a.slice(Math.max(0, i - 60), i + 60))} vs ${JSON.stringify(b.slice(Math.max(0, i - 60), i + 60))}`;
}

async function until(what: string, check: () => Promise<boolean> | boolean, timeoutMs: number, everyMs = 500): Promise<number> {
  const started = performance.now();
  for (;;) {
    try {
      if (await check()) return performance.now() - started;
    } catch {
      // Not yet.
    }
    if (performance.now() - started > timeoutMs) throw new Error(`${what}: not within ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

const get = (p: string, headers: Record<string, string> = {}) => fetch(`${base}${p}`, { headers, signal: AbortSignal.timeout(15_000) });

/** The project folder an operator would have: the compose file as committed, its nats.conf, the podman override, .env and the bus credentials. */
function writeProject(chainRpc: string, payTo: string, facilitatorKey: string, port: number): void {
  projectDir = mkdtempSync(path.join(os.tmpdir(), "board-compose-"));
  mkdirSync(path.join(projectDir, "deploy/compose"), { recursive: true });
  copyFileSync(path.join(root, "docker-compose.yml"), path.join(projectDir, "docker-compose.yml"));
  copyFileSync(path.join(root, "deploy/compose/nats.conf"), path.join(projectDir, "deploy/compose/nats.conf"));
  // The postgres init script that creates each service's role; git keeps it executable.
  cpSync(path.join(root, "deploy/compose/initdb"), path.join(projectDir, "deploy/compose/initdb"), { recursive: true });
  copyFileSync(path.join(root, "deploy/podman/compose.podman.yml"), path.join(projectDir, "compose.podman.yml"));
  const creds = spawnSync(process.execPath, ["--import", "tsx", path.join(root, "scripts/bus-credentials.ts"), path.join(projectDir, "bus")], { cwd: root, encoding: "utf8" });
  if (creds.status !== 0) throw new Error(`bus-credentials failed: ${creds.stderr}`);
  const secret = () => generatePrivateKey().slice(2);
  const env = [
    `POSTGRES_PASSWORD=${secret()}`,
    ...["BOARD", "IDENTITY", "METERING", "PAYMENTS"].map((s) => `POSTGRES_PASSWORD_${s}=${secret()}`),
    `IDENTITY_SECRET=${secret()}`,
    `BUS_AUTHORIZATION=./bus/authorization.conf`,
    // The operator's seed, mounted into the one-shot bus-streams job only (the deploy step that
    // creates the streams), run as the file's owner: this process's user, as `id -u` gives it.
    `BUS_OPERATOR_SEED_PATH=./bus/seeds/operator.nk`,
    `BUS_OPERATOR_UID=${process.getuid!()}`,
    readFileSync(path.join(projectDir, "bus/seeds.env"), "utf8").trim(),
    `GATEWAY_PUBLISHED_PORT=${port}`,
    `PUBLIC_BASE_URL=http://127.0.0.1:${port}`,
    "LOG_LEVEL=info",
    // One board for the whole run, so every 200 can be compared with the first (the kill test).
    "REFRESH_MINUTES=60",
    // The Base rail only, on the development chain (no real money).
    "PAYMENTS_MODE=development",
    `RECEIPT_SECRET=${secret()}`,
    `PAY_TO_BASE=${payTo}`,
    `BASE_RPC_URL=${chainRpc}`,
    `BASE_FACILITATOR_KEY=${facilitatorKey}`,
    "",
  ].join("\n");
  writeFileSync(path.join(projectDir, ".env"), env, { mode: 0o600 });
}

/** `npm run license -- issue ...` as the operator, from a container on the stack's internal network (NATS is published nowhere). */
async function issueLicense(): Promise<string> {
  const seed = readFileSync(path.join(projectDir, "bus/seeds/operator.nk"), "utf8").trim();
  const res = await engine.exec(
    "podman",
    ["run", "--rm", "--network", `${PROJECT}_backend`, "--volume", `${root}:/src:ro`, "--workdir", "/src", "--env", "NATS_URL=nats://nats:4222", "--env", `NATS_NKEY_SEED=${seed}`, "--env", "TSX_DISABLE_CACHE=1",
      BASE_IMAGE, "node", "--import", "tsx", "services/identity/src/cli/license.ts", "issue", "--kind", "scanner", "--period", "monthly", "--holder", "containers test"],
    { timeoutMs: 60_000 },
  );
  if (res.code !== 0) throw new Error(`license issue failed (${res.code}): ${res.stderr}`);
  const issued = JSON.parse(res.stdout) as { key: string };
  return issued.key;
}

beforeAll(async () => {
  engine = await startEngine(path.join(WORK, "engine-compose"));
  report.images = JSON.parse(readFileSync(IMAGES_REPORT, "utf8")) as ImageFigure[];

  chain = await startEvmChain({ accounts: 1, hostname: hostAddress() });
  const payTo = privateKeyToAccount(generatePrivateKey()).address;
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  writeProject(chain.rpcUrl, payTo, chain.accounts[0]!, port);
  await compose(["down", "--volumes", "--remove-orphans"]); // a run killed before its own down
  stopHealth = engine.tickHealth(PROJECT);
  const started = performance.now();
  const up = await compose(["up", "--detach", "--no-build"]);
  if (up.code !== 0) throw new Error(`compose up failed (${up.code}):\n${up.stderr.slice(-6000)}`);
  await until("the board on the gateway", async () => (await get("/api/board/free")).status === 200, 300_000);
  await until("every container healthy", () => [...SERVICES, "nats", "postgres"].every((s) => inspect(container(s), "{{.State.Health.Status}}") === "healthy"), 120_000);
  licenseKey = await issueLicense();
  report.stack_up_seconds = Math.round((performance.now() - started) / 1000);
}, 3_600_000);

afterAll(async () => {
  stopHealth();
  if (projectDir) {
    const logs = await compose(["logs", "--no-color", "--tail", "200"]);
    mkdirSync(WORK, { recursive: true });
    writeFileSync(path.join(WORK, "compose.log"), logs.stdout + logs.stderr);
    await compose(["down", "--volumes", "--remove-orphans"]);
    rmSync(projectDir, { recursive: true, force: true });
  }
  await chain?.stop();
  await engine?.stop();
  mkdirSync(WORK, { recursive: true });
  writeFileSync(path.join(WORK, "report.json"), `${JSON.stringify(report, null, 2)}\n`);
  process.stdout.write(`containers report (.data/containers/report.json):\n${JSON.stringify(report, null, 2)}\n`);
}, 300_000);

describe("the images", () => {
  it("six, from the one Dockerfile, each with its build time and size", () => {
    expect(report.images!.map((i) => i.service)).toEqual([...SERVICES]);
    for (const image of report.images!) {
      expect(image.size_mb, image.service).toBeGreaterThan(50);
      // Over 250 MB is explained in the README (the base is ~300 MB of Debian and Node).
      expect(image.size_mb, image.service).toBeLessThan(600);
    }
  });
});

describe("the stack from docker-compose.yml", () => {
  it("every container is up, and the ones with a health check are healthy", () => {
    for (const service of [...SERVICES, "nats", "postgres"]) {
      expect(inspect(container(service), "{{.State.Status}}"), service).toBe("running");
      expect(inspect(container(service), "{{.State.Health.Status}}"), service).toBe("healthy");
    }
  });

  it("the one-shot bus-streams job created the streams as the operator and exited", () => {
    expect(inspect(container("bus-streams"), "{{.State.Status}}")).toBe("exited");
    const logs = engine.podman(["logs", container("bus-streams")]);
    expect(inspect(container("bus-streams"), "{{.State.ExitCode}}"), logs.stdout + logs.stderr).toBe("0");
    expect(logs.stdout).toMatch(/^BOARD: (created|updated)$/m);
    expect(logs.stdout).toMatch(/^READS: (created|updated)$/m);
  });

  it("serves the free reads, each with its schema", async () => {
    const cases: [string, z.ZodType][] = [
      ["/api/board/free", FreeBoard],
      ["/api/board/agent?preview=1", FullBoard],
      ["/api/board/symbols", SymbolDirectory],
      ["/api/board/status", BoardStatus],
      ["/api/board/state", BoardState],
    ];
    for (const [p, schema] of cases) {
      const res = await get(p);
      expect(res.status, p).toBe(200);
      schema.parse(await res.json());
    }
    const unpaid = await get("/api/board/buylist");
    expect(unpaid.status).toBe(402);
  });

  it("serves a licensed read on a licence the operator issued over the internal network", async () => {
    const res = await get("/api/board/regime", { "x-license-key": licenseKey });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-board-tier")).toBe("scanner_license");
    RegimeView.parse(await res.json());
  });

  it("sells a paid read with x402, settled on the development chain from the payments container", async () => {
    const buyer = generatePrivateKey();
    await chain.mint(privateKeyToAccount(buyer).address, 1_000_000n);
    const payTo = readFileSync(path.join(projectDir, ".env"), "utf8").match(/^PAY_TO_BASE=(.*)$/m)![1] as `0x${string}`;
    const before = await chain.balanceOf(payTo);
    const pay = wrapFetchWithPayment(fetch, new x402Client().register("eip155:*", new ExactEvmScheme(privateKeyToAccount(buyer))));
    const res = await pay(`${base}/api/board/regime`);
    expect(res.status).toBe(200);
    RegimeView.parse(await res.json());
    const receipt = decodePaymentResponseHeader(res.headers.get("payment-response")!);
    expect(receipt.success).toBe(true);
    expect(receipt.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await chain.balanceOf(payTo)).toBe(before + PRICE_REGIME);
  });

  it("answers an MCP client on /mcp", async () => {
    const client = new Client({ name: "containers-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)));
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain("get_status");
    const result = (await client.callTool({ name: "get_symbols", arguments: {} })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    const text = result.content.find((c) => c.type === "text")!.text;
    expect(SymbolDirectory.parse(JSON.parse(text)).count).toBeGreaterThan(500);
    await client.close();
  });

  it("serves /metrics on each service's health port, inside its container", () => {
    for (const service of SERVICES) {
      const res = engine.podman(["exec", container(service), "node", "-e", "fetch('http://127.0.0.1:9100/metrics').then(async r=>{process.stdout.write(String(r.status)+'\\n'+await r.text())})"]);
      const [status, ...body] = res.stdout.split("\n");
      expect(status, service).toBe("200");
      const metric = (name: string) => Number(new RegExp(`^${name}\\{service="${service}"\\} (\\d+)`, "m").exec(body.join("\n"))?.[1]);
      expect(metric("process_resident_memory_bytes"), service).toBeGreaterThan(0);
      (report.heap_mb ??= {})[service] = { used: Math.round(metric("nodejs_heap_size_used_bytes") / 1e6), total: Math.round(metric("nodejs_heap_size_total_bytes") / 1e6) };
    }
  });
});

describe("what the manifests promise, at run time", () => {
  it("each service runs as 10001 with no capability and no way to gain one", () => {
    for (const service of SERVICES) {
      const status = procStatus(hostPid(service));
      expect(status.Uid!.split(/\s+/), service).toEqual(["10001", "10001", "10001", "10001"]);
      expect(status.Gid!.split(/\s+/), service).toEqual(["10001", "10001", "10001", "10001"]);
      for (const set of ["CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"]) expect(status[set], `${service} ${set}`).toBe("0000000000000000");
      expect(status.NoNewPrivs, service).toBe("1");
    }
  });

  // podman's read-only mode also mounts its own tmpfs on /var/tmp and /run (Docker's does not):
  // memory, not the image; everything of the image is read-only.
  it("each service can write to its tmpfs /tmp and nowhere in the image", () => {
    const probe = "for (const d of ['/tmp','/app','/app/services','/','/home','/etc','/usr/local/bin']) { try { require('fs').writeFileSync(d+'/probe',''); console.log(d+' written') } catch (e) { console.log(d+' '+e.code) } }";
    for (const service of SERVICES) {
      const lines = engine.podman(["exec", container(service), "node", "-e", probe]).stdout.trim().split("\n");
      expect(lines, service).toEqual(["/tmp written", "/app EROFS", "/app/services EROFS", "/ EROFS", "/home EROFS", "/etc EROFS", "/usr/local/bin EROFS"]);
      expect(inspect(container(service), "{{.HostConfig.ReadonlyRootfs}}"), service).toBe("true");
    }
  });

  it("only the gateway is published, on the loopback interface", () => {
    for (const service of [...SERVICES, "nats", "postgres"]) {
      const ports = engine.podman(["port", container(service)]).stdout.trim();
      if (service === "gateway") expect(ports).toBe(`8080/tcp -> ${new URL(base).hostname}:${new URL(base).port}`);
      else expect(ports, service).toBe("");
    }
  });
});

describe("memory and faults", () => {
  const servicesRss = (field: "VmRSS" | "VmHWM") => Object.fromEntries(SERVICES.map((s) => [s, rssMb(hostPid(s), field)]));

  it(`each service container holds at most ${RSS_AT_REST_MB} MB RSS at rest, and under its pod's memory request`, async () => {
    // At rest: 30 s after the last read and after scanner-ingest's last scan (it scans on its
    // own schedule): past the idle check (every 5 s) and the last of its collections 16 s later
    // (packages/service-kit/src/idle-collector.ts).
    await new Promise((r) => setTimeout(r, 30_000));
    await until("scanner-ingest 30 s past its last scan", () => Date.now() - lastScanAt() >= 30_000, 120_000, 1_000);
    report.rss_at_rest_mb = servicesRss("VmRSS");
    const requests = memoryRequestsMb();
    for (const [service, mb] of Object.entries(report.rss_at_rest_mb)) {
      expect(mb, `${service} against its pod's memory request`).toBeLessThan(requests[service]!);
      expect(mb, service).toBeLessThanOrEqual(RSS_AT_REST_MB);
    }
  });

  // One licence is held to 10 reads a second (metering's per-principal burst limit), anonymous
  // reads to 20 per address: the lanes mix both, and a 429 with its error body is a right answer.
  it("records the peak RSS of each under 20 s of 16 lanes of licensed and anonymous reads", async () => {
    const reads: { path: string; licensed: boolean }[] = [
      { path: "/api/board/agent", licensed: true },
      { path: "/api/board/regime", licensed: true },
      { path: "/api/board/free", licensed: false },
      { path: "/api/board/agent?preview=1", licensed: false },
      { path: "/api/board/state", licensed: false },
    ];
    const counts = { served: 0, limited: 0 };
    const bad: string[] = [];
    const stopAt = performance.now() + 20_000;
    await Promise.all(
      Array.from({ length: 16 }, async (_, lane) => {
        for (let i = lane; performance.now() < stopAt; i++) {
          const r = reads[i % reads.length]!;
          const res = await get(r.path, r.licensed ? { "x-license-key": licenseKey } : {});
          const text = await res.text();
          if (res.status === 200) counts.served++;
          else if (res.status === 429 && ErrorBody.parse(JSON.parse(text)).error.status === 429 && res.headers.get("retry-after") !== null) counts.limited++;
          else bad.push(`${r.path}: ${res.status} ${text.slice(0, 120)}`);
        }
      }),
    );
    report.load = { reads: counts.served + counts.limited, served: counts.served, limited: counts.limited, seconds: 20, per_second: Math.round((counts.served + counts.limited) / 20) };
    report.rss_under_load_mb = servicesRss("VmHWM");
    expect(bad).toEqual([]);
    expect(counts.served).toBeGreaterThan(200);
  });

  it(`a killed board container restarts and its reads are back within ${RECOVERY_MS / 1000} s, with no wrong body`, async () => {
    const watched = ["/api/board/agent", "/api/board/regime"];
    const schemaOf: Record<string, z.ZodType> = { "/api/board/agent": FullBoard, "/api/board/regime": RegimeView };
    const read = (p: string) => get(p, { "x-license-key": licenseKey });
    const withoutFreshness = (body: Record<string, unknown>) => JSON.stringify({ ...body, freshness: null });
    // The load above emptied the licence's burst bucket (20 reads, 10 more a second): full again first.
    await new Promise((r) => setTimeout(r, 2_500));
    const reference = Object.fromEntries(
      await Promise.all(watched.map(async (p) => [p, withoutFreshness((await (await read(p)).json()) as Record<string, unknown>)] as const)),
    );
    const problems: string[] = [];
    let reads = 0;
    let refused = 0;
    let lastRefusedAt = 0;
    /** When each watched read last answered 200 with the board's body. */
    const lastServedAt: Record<string, number> = {};
    let running = true;
    // Two lanes, a read every 250 ms each: under the licence's 10 a second.
    const lanes = Array.from({ length: 2 }, async (_, lane) => {
      for (let i = lane; running; i++) {
        const p = watched[i % watched.length]!;
        try {
          const res = await read(p);
          const text = await res.text();
          reads++;
          if (res.status === 200) {
            const served = withoutFreshness(schemaOf[p]!.parse(JSON.parse(text)) as Record<string, unknown>);
            if (served !== reference[p]) problems.push(`${p}: a 200 that is not the board's (first difference at ${firstDifference(served, reference[p]!)})`);
            else lastServedAt[p] = performance.now();
          } else if (res.status === 503 || res.status === 504) {
            refused++;
            lastRefusedAt = performance.now();
            const { error } = ErrorBody.parse(JSON.parse(text));
            if (error.status !== res.status) problems.push(`${p}: ${res.status} with error status ${error.status}`);
            if (res.headers.get("retry-after") === null) problems.push(`${p}: ${res.status} without Retry-After`);
          } else problems.push(`${p}: status ${res.status}`);
        } catch (err) {
          problems.push(`${p}: ${(err as Error).message}`);
        }
        await new Promise((r) => setTimeout(r, 250));
      }
    });
    await new Promise((r) => setTimeout(r, 2_000));
    const pid = hostPid("board");
    const restarts = Number(inspect(container("board"), "{{.RestartCount}}"));
    const killedAt = performance.now();
    process.kill(pid, "SIGKILL");
    const restartMs = await until("board restarted", () => Number(inspect(container("board"), "{{.RestartCount}}")) > restarts && hostPid("board") !== pid, RECOVERY_MS, 200);
    // Back: the lanes' reads of every watched path answer 200 with the board's body again, and
    // none was refused for 3 s. Judged from the lanes' own reads: reading here as well would
    // take the licence past its 10 reads a second (429s that say nothing of the board).
    await until(
      "reads back",
      () => watched.every((p) => (lastServedAt[p] ?? 0) > Math.max(killedAt, lastRefusedAt)) && performance.now() - lastRefusedAt > 3_000,
      RECOVERY_MS,
      200,
    ).catch((err: Error) => {
      // Say what the lanes saw meanwhile: a refusal that never stopped, or answers that were not the board's.
      throw new Error(`${err.message}; ${reads} reads, ${refused} refused, last refused ${Math.round(performance.now() - lastRefusedAt)} ms ago; problems: ${JSON.stringify([...new Set(problems)].slice(0, 5))}`);
    });
    const backMs = Math.max(0, lastRefusedAt - killedAt);
    running = false;
    await Promise.all(lanes);
    report.kill = { service: "board", restart_ms: Math.round(restartMs), reads_back_ms: Math.round(backMs), reads, refused };
    expect(problems).toEqual([]);
    expect(backMs).toBeLessThan(RECOVERY_MS);
  });
});
