import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { RAILS } from "@board/client";
import { freePort } from "@board/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launcherEnv } from "./env.js";
import { TRANSACTION } from "../settlement-references.js";

// `npm run buy` against `npm start` as a newcomer runs them: the launcher with no rail configured
// (development chains, funded wallets in dev-wallets.json, its own nats-server and embedded
// Postgres), then one purchase per rail with the buyer script, each payment replayed once (delivered again).

let launcher: ChildProcess;
let output = "";
let port: number;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "board-buy-e2e-"));

beforeAll(async () => {
  port = await freePort();
  const env = launcherEnv({ PORT: String(port), HEALTH_PORT_BASE: "0", DATA_DIR: dataDir, LOG_LEVEL: "warn" });
  delete env.DATABASE_URL;
  launcher = spawn(process.execPath, ["scripts/start.mjs"], { env, stdio: ["ignore", "pipe", "pipe"] });
  launcher.stdout!.on("data", (d: Buffer) => (output += d.toString()));
  launcher.stderr!.on("data", (d: Buffer) => (output += d.toString()));
  await new Promise<void>((resolve, reject) => {
    const timer = setInterval(() => {
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
});

afterAll(async () => {
  if (launcher && launcher.exitCode === null) {
    const exited = new Promise((r) => launcher.once("exit", r));
    launcher.kill("SIGINT");
    await Promise.race([exited, new Promise((r) => setTimeout(r, 20_000))]);
    if (launcher.exitCode === null) launcher.kill("SIGKILL");
  }
  fs.rmSync(dataDir, { recursive: true, force: true });
});

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * `npm run buy -- <args>` in the repository, with the launcher's data directory. It runs in a
 * process group of its own, so a stop reaches the script under npm as Ctrl-C would.
 */
function buy(args: string[], env: Record<string, string> = {}, opts: { untilStdout?: RegExp; direct?: boolean } = {}): Promise<Run> {
  // `direct`: the command npm runs, without npm (whose own exit on Ctrl-C is a signal, not the script's code).
  const [cmd, argv] = opts.direct ? [process.execPath, ["--import", "tsx", "scripts/buy/main.ts", ...args]] : ["npm", ["run", "--silent", "buy", "--", ...args]];
  return new Promise((resolve) => {
    const child = spawn(cmd, argv, {
      env: launcherEnv({ DATA_DIR: dataDir, ...env }),
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    const group = (signal: NodeJS.Signals) => {
      try {
        process.kill(-child.pid!, signal);
      } catch {
        // Already gone.
      }
    };
    const guard = setTimeout(() => group("SIGKILL"), 60_000);
    const run: Run = { code: null, stdout: "", stderr: "" };
    child.stdout.on("data", (d: Buffer) => {
      run.stdout += d.toString();
      // A watch runs until stopped: Ctrl-C once it has bought.
      if (opts.untilStdout?.test(run.stdout)) group("SIGINT");
    });
    child.stderr.on("data", (d: Buffer) => (run.stderr += d.toString()));
    child.once("exit", (code) => {
      clearTimeout(guard);
      resolve({ ...run, code });
    });
  });
}

/** A labelled line of the script's output ("receipt  0x..."). */
const field = (stdout: string, label: string): string | undefined => new RegExp(`^${label}\\s+(.+)$`, "m").exec(stdout)?.[1];


describe("npm run buy against npm start's development chains", () => {
  for (const rail of RAILS) {
    it(`--rail ${rail}: pays 0.005 USDC, prints the receipt and the balance after; the replayed payment is delivered again, not charged`, async () => {
      const run = await buy(["/api/board/regime", "--rail", rail, "--replay"]);
      expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
      expect(field(run.stdout, "GET")).toBe(`http://localhost:${port}/api/board/regime`);
      expect(field(run.stdout, "price")).toMatch(/^0\.005 USDC \(5000 base units\)/);
      const receipt = field(run.stdout, "receipt")!.split(/\s+/)[0];
      expect(receipt).toMatch(TRANSACTION[rail]);
      expect(field(run.stdout, "receipt")).toContain(rail === "mpp" ? "(Payment-Receipt" : "(PAYMENT-RESPONSE");
      expect(field(run.stdout, "body")).toMatch(/^as of \d{4}-\d{2}-\d{2} .*spx [A-Z_]+/);
      const [, after, before] = /^([\d.]+) USDC after \(was ([\d.]+)\)/.exec(field(run.stdout, "balance") ?? "") ?? [];
      expect(Math.round((Number(before) - Number(after)) * 1e6)).toBe(5000);
      expect(field(run.stdout, "replay")).toMatch(/^delivered again \(Payment-Redelivery 1\): the same read, not charged again/);
      // The receipt is kept beside the wallets.
      const kept = fs.readFileSync(path.join(dataDir, "receipts.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l) as { rail: string; transaction: string });
      expect(kept.at(-1)).toMatchObject({ rail, transaction: receipt });
    });
  }

  it("--watch buys the view once and then waits for it to change; Ctrl-C stops it", async () => {
    const run = await buy(["/api/board/indices", "--watch"], {}, { untilStdout: /^next\s/m, direct: true });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.match(/^receipt\s/gm)).toHaveLength(1);
    expect(field(run.stdout, "next")).toMatch(/^not before \d{4}-\d{2}-\d{2}T/);
  });

  it("the daily cap refuses before paying", async () => {
    const run = await buy(["/api/board/agent", "--cap", "100000"]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/daily_cap_exceeded: paying 0\.25 USDC/);
    expect(field(run.stdout, "receipt")).toBeUndefined();
  });

  it("says plainly when the board is not running or there are no development wallets", async () => {
    const closed = await freePort();
    const down = await buy(["/api/board/regime"], { BOARD_URL: `http://127.0.0.1:${closed}` });
    expect(down.code).toBe(1);
    expect(down.stderr).toContain("network_error");
    expect(down.stderr).toContain("npm start");
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), "board-buy-empty-"));
    try {
      const missing = await buy(["/api/board/regime"], { DATA_DIR: empty });
      expect(missing.code).toBe(1);
      expect(missing.stderr).toMatch(/dev-wallets\.json is missing: start the stack with `npm start`/);
    } finally {
      fs.rmSync(empty, { recursive: true, force: true });
    }
    const usage = await buy(["/api/board/regime", "--rail", "paypal"]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain("unknown rail paypal");
  });
});
