import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { AsofSampleView, BoardState, BoardStatus, FreeBoard, FullBoard, SymbolDirectory } from "@board/proto";
import { freePort, freshDatabase, testInfra, type TestDatabase } from "@board/service-kit/testing";
import { connect } from "nats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launcherEnv, toolEnv } from "./env.js";

const infra = testInfra();
let launcher: ChildProcess;
let db: TestDatabase;
let port: number;
let natsPort: number | null = null;
let output = "";
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "board-e2e-"));

beforeAll(async () => {
  db = await freshDatabase(infra.databaseUrl);
  port = await freePort();
  // Without NATS_URL the launcher starts its own nats-server, as `npm start` does on a fresh machine.
  const env = launcherEnv({ DATABASE_URL: db.url, PORT: String(port), HEALTH_PORT_BASE: "0", DATA_DIR: dataDir, LOG_LEVEL: "warn" });
  const started = Date.now();
  launcher = spawn(process.execPath, ["scripts/start.mjs"], { env, stdio: ["ignore", "pipe", "pipe"] });
  launcher.stdout!.on("data", (d: Buffer) => (output += d.toString()));
  launcher.stderr!.on("data", (d: Buffer) => (output += d.toString()));
  await new Promise<void>((resolve, reject) => {
    const timer = setInterval(() => {
      const m = /nats-server with JetStream at nats:\/\/127\.0\.0\.1:(\d+)/.exec(output);
      if (m) natsPort = Number(m[1]);
      if (output.includes("stack ready")) {
        clearInterval(timer);
        resolve();
      }
      if (launcher.exitCode !== null) {
        clearInterval(timer);
        reject(new Error(`launcher exited early:\n${output}`));
      }
    }, 100);
  });
  // The scanner publishes on start; wait for the free slice to be served.
  for (;;) {
    const res = await fetch(`http://127.0.0.1:${port}/api/board/free`);
    if (res.status === 200) break;
    if (Date.now() - started > 240_000) throw new Error(`free read never served:\n${output}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  console.log(`e2e: stack serving /api/board/free ${((Date.now() - started) / 1000).toFixed(1)} s after launch`);
}, 300_000);

afterAll(async () => {
  // Ctrl-C first (a failed test must not leave the stack's processes running), killed if it hangs.
  if (launcher.exitCode === null) {
    const exited = new Promise((r) => launcher.once("exit", r));
    launcher.kill("SIGINT");
    await Promise.race([exited, new Promise((r) => setTimeout(r, 30_000))]);
    if (launcher.exitCode === null) launcher.kill("SIGKILL");
  }
  await db.drop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe("npm start launcher, end to end", () => {
  it("serves every free endpoint over HTTP with computed data", async () => {
    const base = `http://127.0.0.1:${port}`;
    const free = FreeBoard.parse(await (await fetch(`${base}/api/board/free`)).json());
    const preview = FullBoard.parse(await (await fetch(`${base}/api/board/agent?preview=1`)).json());
    const symbols = SymbolDirectory.parse(await (await fetch(`${base}/api/board/symbols`)).json());
    const status = BoardStatus.parse(await (await fetch(`${base}/api/board/status`)).json());
    const state = BoardState.parse(await (await fetch(`${base}/api/board/state`)).json());
    expect(symbols.count).toBe(565);
    expect(Object.keys(symbols.sectors).sort()).toHaveLength(21); // 20 sectors + the Index rung
    expect(status.provider.name).toBe("simulator");
    expect(free.asof_daily < status.asof_daily).toBe(true); // one trading day delayed
    expect(preview.asof_daily).toBe(free.asof_daily);
    expect(new Set(preview.names.map((n) => n.opp_score)).size).toBeGreaterThan(1);
    expect(Object.keys(state.views)).toEqual(expect.arrayContaining(["agent", "free", "preview", "symbols", "status"]));
    expect((await fetch(`${base}/api/board/regime`)).status).toBe(402);
  });

  it("runs the bus with authorization on: no credential is refused; the licence CLI works with the operator's key and not with a service's", async () => {
    const url = `nats://127.0.0.1:${natsPort}`;
    await expect(connect({ servers: url, reconnect: false })).rejects.toThrow(/Authorization Violation/i);
    const auth = path.join(dataDir, "nats", "auth");
    for (const f of fs.readdirSync(auth)) expect(fs.statSync(path.join(auth, f)).mode & 0o077, f).toBe(0);
    expect(output).not.toMatch(/SU[A-Z2-7]{56}/);
    const license = (seedFile: string) =>
      new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
        // Async: the CLI talks to services in the launcher's processes, never to this one, but a sync spawn would still stall the test's timers.
        const child = spawn(process.execPath, ["--import", "tsx", "services/identity/src/cli/license.ts", "list"], {
          env: toolEnv({ NATS_URL: url, NATS_NKEY_SEED_FILE: path.join(auth, seedFile) }),
        });
        let stdout = "";
        let stderr = "";
        child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
        child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
        child.once("exit", (code) => resolve({ code: code ?? 1, stdout, stderr }));
      });
    const operator = await license("operator.nk");
    expect(operator.code, operator.stderr).toBe(0);
    expect(JSON.parse(operator.stdout)).toEqual({ licenses: [] });
    // The gateway's key may not ask for licences: the bus refuses the publish, identity never hears it.
    const gateway = await license("gateway.nk");
    expect(gateway.code).toBe(1);
    expect(gateway.stdout).toBe("");
    expect(gateway.stderr).toContain("the bus lets no one else ask for licences");
  });

  it("verify-proof checks a committed board against /api/board/proof, and refuses a tampered one", async () => {
    const base = `http://127.0.0.1:${port}`;
    const sample = AsofSampleView.parse(await (await fetch(`${base}/api/board/asof?sample=1`)).json());
    const good = path.join(dataDir, "board.json");
    fs.writeFileSync(good, JSON.stringify(sample.board));
    const tampered = path.join(dataDir, "tampered.json");
    const names = sample.board.names.map((n, i) => (i === 0 ? { ...n, opp_score: n.opp_score === 50 ? 51 : 50 } : n));
    fs.writeFileSync(tampered, JSON.stringify({ ...sample.board, names }));
    const run = (file: string) => spawnSync(process.execPath, ["--import", "tsx", "scripts/verify-proof.ts", file, base], { encoding: "utf8" });
    const ok = run(good);
    expect(ok.status, ok.stderr).toBe(0);
    expect(ok.stdout).toContain(`commitment #${sample.commitment.seq}`);
    const bad = run(tampered);
    expect(bad.status).toBe(1);
    expect(bad.stdout).toContain("NOT verified");
    // The read as served (a dated board of /api/board/asof has the same shape): its board is checked.
    const whole = path.join(dataDir, "asof.json");
    fs.writeFileSync(whole, JSON.stringify(sample));
    const wrapped = run(whole);
    expect(wrapped.status, wrapped.stderr).toBe(0);
    expect(wrapped.stdout).toContain(`commitment #${sample.commitment.seq}`);
  });

  it("stops every child process on Ctrl-C", async () => {
    launcher.kill("SIGINT");
    const code = await new Promise<number | null>((resolve) => launcher.once("exit", (c) => resolve(c)));
    expect(code).toBe(0);
    const closed = (p: number) =>
      new Promise<boolean>((resolve) => {
        const s = net.connect({ host: "127.0.0.1", port: p });
        s.once("connect", () => (s.destroy(), resolve(false)));
        s.once("error", () => resolve(true));
      });
    expect(await closed(port)).toBe(true);
    expect(natsPort).not.toBeNull();
    expect(await closed(natsPort!)).toBe(true);
  });
});
