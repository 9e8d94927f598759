import { execFile, spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { build } from "esbuild";
import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchStack, type LaunchedStack } from "./launched-stack.js";
import { toolEnv } from "./env.js";

// @board/client as an integrator gets it: `npm pack` (which builds dist/ and publishes exports to
// it, not to the TypeScript source), the tarball installed with npm into an empty folder outside
// the repository, then its bin buys a paid read of a stack started by `npm start`, its paying MCP
// proxy pays a tool call for an MCP host, and a page in Chromium, bundled from the installed
// package's browser entry, buys one too. The buyer is the development wallet that start
// generated and funded in this test's own data directory.

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const CLIENT_DIR = path.join(ROOT, "packages", "client");
/** Debian's chromium (.ci/run installs it); never a downloaded browser. */
const CHROMIUM = "/usr/bin/chromium";
const run = promisify(execFile);

const work = fs.mkdtempSync(path.join(os.tmpdir(), "board-client-package-"));
// Its own temporary folder, as buy.test.ts's: the launcher's Postgres user must reach it.
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "board-client-package-stack-"));
const app = path.join(work, "app");
let tarball: string;
let stack: LaunchedStack;
let wallets: { base: { buyer: { private_key: string } } };
const timings: Record<string, number> = {};

async function timed<T>(label: string, f: () => Promise<T>): Promise<T> {
  const started = Date.now();
  try {
    return await f();
  } finally {
    timings[label] = Date.now() - started;
  }
}

beforeAll(async () => {
  fs.mkdirSync(app, { recursive: true });
  // The stack starts while the package is packed and installed (they share nothing).
  const starting = timed("stack", () => launchStack(dataDir));
  starting.catch(() => undefined); // Awaited below; a failed start is reported there.
  try {
    const packed = await timed("pack", () => run("npm", ["pack", "--json", "--pack-destination", work], { cwd: CLIENT_DIR, maxBuffer: 16 << 20 }));
    const [info] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf("["))) as { filename: string; size: number }[];
    tarball = path.join(work, info!.filename);
    timings.tarballBytes = info!.size;
    // Outside the repository: nothing of the workspace (no @board/proto, no source) can be found.
    fs.writeFileSync(path.join(app, "package.json"), JSON.stringify({ name: "integrator", private: true, type: "module" }));
    await timed("install", () => run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", tarball], { cwd: app, maxBuffer: 16 << 20 }));
  } finally {
    stack = await starting;
  }
  wallets = JSON.parse(fs.readFileSync(path.join(dataDir, "dev-wallets.json"), "utf8")) as typeof wallets;
}, 300_000);

afterAll(async () => {
  await stack?.stop();
  console.log(`client package: ${JSON.stringify(timings)}`);
  fs.rmSync(work, { recursive: true, force: true });
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe("the packed @board/client", () => {
  it("is built JavaScript with declarations: no TypeScript source, no @board/proto dependency, not private", () => {
    const installed = path.join(app, "node_modules", "@board", "client");
    const pkg = JSON.parse(fs.readFileSync(path.join(installed, "package.json"), "utf8")) as Record<string, unknown> & { dependencies: Record<string, string> };
    expect(pkg.private).toBeUndefined();
    expect(pkg.license).toBe("Apache-2.0");
    // Two commands; `client` (the package's unscoped name) is board-buy again, so that `npx @board/client` knows which to run.
    expect(pkg.bin).toEqual({ "board-buy": "./dist/cli/bin.js", "board-mcp": "./dist/cli/mcp-bin.js", client: "./dist/cli/bin.js" });
    expect(Object.keys(pkg.dependencies)).not.toContain("@board/proto");
    expect(JSON.stringify(pkg.exports)).not.toContain("/src/");
    expect(fs.existsSync(path.join(installed, "src"))).toBe(false);
    expect(fs.existsSync(path.join(installed, "dist", "index.d.ts"))).toBe(true);
    expect(fs.existsSync(path.join(installed, "dist", "browser.d.ts"))).toBe(true);
    expect(fs.existsSync(path.join(app, "node_modules", "@board", "proto"))).toBe(false);
  });

  it("npx @board/client buys a paid read: 0.005 USDC, PAYMENT-RESPONSE, the receipt appended to the working directory's receipts file", async () => {
    const receipts = path.join(app, "receipts.jsonl");
    const child = spawn("npx", ["--no-install", "@board/client", "/api/board/regime"], {
      cwd: app,
      env: toolEnv({ BOARD_URL: stack.base, BOARD_DEV_WALLETS: path.join(dataDir, "dev-wallets.json"), BOARD_RECEIPTS: "receipts.jsonl" }),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const code = await timed("bin", () => new Promise<number | null>((resolve) => child.once("exit", resolve)));
    expect(code, `${stdout}\n${stderr}`).toBe(0);
    expect(stdout).toMatch(/^GET\s+http:\/\/localhost:\d+\/api\/board\/regime$/m);
    expect(stdout).toMatch(/^price\s+0\.005 USDC \(5000 base units\)/m);
    const receipt = /^receipt\s+(0x[0-9a-f]{64})\s+\(PAYMENT-RESPONSE, payer (0x[0-9a-fA-F]{40})/m.exec(stdout);
    expect(receipt, stdout).not.toBeNull();
    const kept = fs.readFileSync(receipts, "utf8").trim().split("\n").map((l) => JSON.parse(l) as { rail: string; transaction: string; header: string });
    expect(kept).toHaveLength(1);
    expect(kept[0]).toMatchObject({ rail: "base", transaction: receipt![1], header: "PAYMENT-RESPONSE" });
  });

  it("board-mcp, the installed paying MCP proxy, started by an MCP host over stdio: the board's tools listed, a paid call paid and its receipt kept", async () => {
    const receipts = path.join(app, "mcp-receipts.jsonl");
    // No URL: the proxy finds the board's /mcp from the development wallets' gateway, as board-buy finds the board.
    const env = toolEnv({ BOARD_DEV_WALLETS: path.join(dataDir, "dev-wallets.json"), BOARD_RECEIPTS: "mcp-receipts.jsonl" });
    const transport = new StdioClientTransport({
      command: "npx",
      args: ["--no-install", "board-mcp"],
      cwd: app,
      env: Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined)),
      stderr: "pipe",
    });
    let stderr = "";
    transport.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
    const client = new Client({ name: "integrator-host", version: "1.0.0" });
    try {
      await timed("mcp", async () => {
        await client.connect(transport);
        const { tools } = await client.listTools();
        expect(tools.find((t) => t.name === "get_regime_live")?.description, stderr).toContain("Costs 0.005 USDC (5000 base units) per call");
        const paid = (await client.callTool({ name: "get_regime_live", arguments: {} })) as CallToolResult;
        expect(paid.isError, `${JSON.stringify(paid.content).slice(0, 300)}\n${stderr}`).toBeFalsy();
        expect(paid._meta?.["x402/payment-response"]).toMatchObject({ success: true });
      });
    } finally {
      await client.close();
    }
    const kept = fs.readFileSync(receipts, "utf8").trim().split("\n").map((l) => JSON.parse(l) as { rail: string; price: string; header: string });
    expect(kept).toEqual([expect.objectContaining({ rail: "base", price: "5000", header: "PAYMENT-RESPONSE" })]);
  });

  it("in a page of another origin, the browser entry buys a paid read and keeps its receipt in localStorage", async () => {
    // Bundled from the installed package as a web app's bundler would: the browser condition,
    // code split at the client's lazy rail imports. Nothing of ours may reach a node: module
    // (esbuild fails on one for the browser). Two rails' own SDKs import Node's crypto and util
    // (Algorand's xhd-wallet-api, Circle's batching client): left out here, so only their chunks,
    // which this page never loads, would need them (the README says so).
    fs.writeFileSync(
      path.join(app, "page.js"),
      `
        import { BoardClient, createPayer, localStorageReceipts, ReceiptLog } from "@board/client";
        globalThis.buy = async (baseUrl, privateKey) => {
          const payer = await createPayer({ rail: "base", privateKey });
          const board = new BoardClient({ baseUrl, payer, dailyCap: "1000000", receipts: new ReceiptLog(localStorageReceipts()) });
          const read = await board.read("/api/board/regime");
          return {
            ok: read.ok,
            served: read.ok ? read.served : null,
            error: read.ok ? null : read.error,
            receipt: read.ok ? read.receipt : null,
            books: read.ok ? Object.keys(read.body.books) : [],
            stored: JSON.parse(localStorage.getItem("board.receipts") ?? "[]").length,
          };
        };`,
    );
    const bundled = await timed("bundle", () =>
      build({
        entryPoints: [path.join(app, "page.js")],
        absWorkingDir: app,
        bundle: true,
        splitting: true,
        outdir: path.join(work, "page"),
        external: ["crypto", "util"],
        platform: "browser",
        format: "esm",
        target: "chrome120",
        write: false,
        logLevel: "silent",
      }),
    );
    const files = new Map(bundled.outputFiles.map((f) => [`/${path.relative(path.join(work, "page"), f.path)}`, f.contents]));
    expect(files.has("/page.js")).toBe(true);
    const server = http.createServer((req, res) => {
      const file = files.get(req.url ?? "");
      if (file) return void res.writeHead(200, { "content-type": "text/javascript; charset=utf-8" }).end(file);
      if (req.url === "/") return void res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end('<!doctype html><title>integrator</title><script type="module" src="/page.js"></script>');
      res.writeHead(204).end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    let browser: Browser | null = null;
    try {
      browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
      const page = await browser.newPage();
      const errors: string[] = [];
      page.on("pageerror", (e) => errors.push(e.message));
      await page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, { waitUntil: "load" });
      await page.waitForFunction(() => typeof (globalThis as { buy?: unknown }).buy === "function");
      const bought = (await timed("page", () =>
        page.evaluate(([base, key]) => (globalThis as unknown as { buy(b: string, k: string): Promise<unknown> }).buy(base, key), [stack.base, wallets.base.buyer.private_key] as const),
      )) as { ok: boolean; served: string; error: unknown; receipt: { header: string; transaction: string; price: string; rail: string } | null; books: string[]; stored: number };
      expect(bought.ok, JSON.stringify(bought.error)).toBe(true);
      expect(bought.served).toBe("paid");
      expect(bought.receipt).toMatchObject({ rail: "base", header: "PAYMENT-RESPONSE", price: "5000" });
      expect(bought.receipt!.transaction).toMatch(/^0x[0-9a-f]{64}$/);
      expect(bought.books).toContain("spx");
      expect(bought.stored).toBe(1);
      expect(errors).toEqual([]);
    } finally {
      await browser?.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
