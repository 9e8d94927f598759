import { spawn, type ChildProcess } from "node:child_process";
import { createServer, type IncomingMessage, type Server } from "node:http";
import { createRequire } from "node:module";
import { createServer as createNetServer } from "node:net";
import path from "node:path";
import { BASE_CHAIN_ID, setUpChain, type EvmChain, type NodeRequest, type StartEvmChainOptions } from "./chain.js";

/** The npm platform packages of @foundry-rs/anvil that hold the binary, by Node's platform and arch. */
const PLATFORM_PACKAGES: Record<string, string> = {
  "linux-x64": "@foundry-rs/anvil-linux-amd64",
  "linux-arm64": "@foundry-rs/anvil-linux-arm64",
  "darwin-x64": "@foundry-rs/anvil-darwin-amd64",
  "darwin-arm64": "@foundry-rs/anvil-darwin-arm64",
};
const HOSTNAME = "127.0.0.1";
const READY_TIMEOUT_MS = 20_000;

/** The anvil binary of the installed @foundry-rs/anvil (its platform package), run directly rather than through its node shim. */
export function anvilBinary(): string {
  const pkg = PLATFORM_PACKAGES[`${process.platform}-${process.arch}`];
  if (!pkg) throw new Error(`anvil has no npm package for ${process.platform}-${process.arch}`);
  const require = createRequire(import.meta.url);
  return path.join(path.dirname(require.resolve(`${pkg}/package.json`)), "bin", "anvil");
}

/**
 * Starts Foundry's anvil as a process of its own, set up as startEvmChain sets up EDR (the
 * token at the Base USDC address, Multicall3, funded accounts, `mints` while it automines),
 * then mining a block every `blockIntervalMs` (whole seconds: anvil's interval is in seconds).
 * Why a second engine: EDR stops answering JSON-RPC while it mines a block, for longer the more
 * transfers the block carries (bench/chain-stall.ts), where a real node answers while blocks
 * are made; anvil answers while it mines, as a Base RPC does. With `onRequest`, the chain is
 * served through a counting proxy (each JSON-RPC method told, batches included).
 */
export async function startAnvilChain(opts: StartEvmChainOptions = {}): Promise<EvmChain> {
  const blockIntervalMs = opts.blockIntervalMs ?? 0;
  if (!Number.isSafeInteger(blockIntervalMs) || blockIntervalMs < 0 || blockIntervalMs % 1000 !== 0) {
    throw new Error(`anvil mines in whole seconds: blockIntervalMs must be 0 or a multiple of 1000, not ${blockIntervalMs}`);
  }
  const hostname = opts.hostname ?? HOSTNAME;
  const nodePort = await freePort(hostname);
  const child = spawn(anvilBinary(), ["--host", hostname, "--port", String(nodePort), "--chain-id", String(opts.chainId ?? BASE_CHAIN_ID), "--accounts", "1", "--silent"], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (d: Buffer) => (stderr = (stderr + d.toString()).slice(-2000)));
  const nodeUrl = `http://${hostname}:${nodePort}/`;
  const request = jsonRpc(nodeUrl);

  let proxy: Server | null = null;
  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopped ??= (async () => {
      if (proxy) await new Promise<void>((resolve) => (proxy as Server).close(() => resolve()));
      await kill(child);
    })());

  try {
    await untilAnswering(request, child, () => stderr);
    let rpcUrl = nodeUrl;
    if (opts.onRequest) {
      proxy = countingProxy(nodeUrl, opts.onRequest);
      rpcUrl = await listen(proxy, hostname, opts.port ?? 0);
    } else if (opts.port) {
      throw new Error("startAnvilChain picks its own port unless onRequest is given (a proxy listens on opts.port)");
    }
    return await setUpChain({
      request,
      rpcUrl,
      name: "Base (local anvil)",
      opts,
      toInterval: async () => {
        await request("evm_setAutomine", [false]);
        await request("evm_setIntervalMining", [blockIntervalMs / 1000]);
      },
      stop,
    });
  } catch (error) {
    await stop();
    throw error;
  }
}

/** JSON-RPC over HTTP to the node: the result, or the node's error as an Error with its code. */
function jsonRpc(url: string): NodeRequest {
  let id = 0;
  return async (method, params) => {
    const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: ++id, method, params }) });
    const body = (await res.json()) as { result?: unknown; error?: { code: number; message: string } };
    if (body.error) throw Object.assign(new Error(`anvil ${method}: ${body.error.message}`), { code: body.error.code });
    return body.result;
  };
}

async function untilAnswering(request: NodeRequest, child: ChildProcess, stderr: () => string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`anvil exited (${child.exitCode}) before answering: ${stderr().trim()}`);
    try {
      await request("eth_chainId", []);
      return;
    } catch {
      if (Date.now() > deadline) throw new Error(`anvil did not answer within ${READY_TIMEOUT_MS} ms: ${stderr().trim()}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

/** Forwards each request to the node as it came, telling `onRequest` every method it carries. */
function countingProxy(nodeUrl: string, onRequest: (method: string) => void): Server {
  return createServer((req, res) => {
    void (async () => {
      const body = await bodyOf(req);
      try {
        const parsed = JSON.parse(body.toString("utf8")) as { method?: unknown } | { method?: unknown }[];
        for (const call of Array.isArray(parsed) ? parsed : [parsed]) if (typeof call.method === "string") onRequest(call.method);
      } catch {
        // Not JSON: the node answers it in its own words.
      }
      try {
        const answer = await fetch(nodeUrl, { method: "POST", headers: { "content-type": req.headers["content-type"] ?? "application/json" }, body });
        res.writeHead(answer.status, { "content-type": answer.headers.get("content-type") ?? "application/json" });
        res.end(Buffer.from(await answer.arrayBuffer()));
      } catch {
        res.writeHead(502).end();
      }
    })();
  });
}

function bodyOf(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

async function listen(server: Server, hostname: string, port: number): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, hostname, () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("the proxy has no TCP address");
  return `http://${hostname}:${address.port}/`;
}

/** A port free now on `hostname` (the node binds it next; anvil cannot be told to pick one and say it). */
async function freePort(hostname: string): Promise<number> {
  const probe = createNetServer();
  await new Promise<void>((resolve, reject) => {
    probe.once("error", reject);
    probe.listen(0, hostname, () => resolve());
  });
  const address = probe.address();
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  if (address === null || typeof address === "string") throw new Error("no free TCP port");
  return address.port;
}

async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
  await exited;
  clearTimeout(timer);
}
