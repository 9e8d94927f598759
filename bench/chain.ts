import type { Worker } from "node:worker_threads";
import { BASE_CHAIN_ID, MULTICALL3_ADDRESS, type EvmChain } from "@board/test-chains/evm";
import { defineChain, type Address, type Hash, type Hex } from "viem";
import type { ChainEngine } from "./args.js";
import { tsWorker } from "./ts-worker.js";

export type ChainRequest =
  | { id: number; op: "start"; engine: ChainEngine; accounts: number; blockIntervalMs: number; mints: { to: string; amount: string }[] }
  | { id: number; op: "mint"; to: string; amount: string }
  | { id: number; op: "balanceOf"; address: string }
  | { id: number; op: "requests" }
  | { id: number; op: "stop" };
export type ChainReply = { id: number; value: unknown } | { id: number; error: string };
type Op = ChainRequest["op"];
type Args<O extends Op> = Omit<Extract<ChainRequest, { op: O }>, "id" | "op">;

/** A chain of the worker thread, which also counts the JSON-RPC requests it served. */
export interface ThreadChain extends EvmChain {
  /** Requests served over HTTP since the chain started, by method. */
  requests(): Promise<Record<string, number>>;
}

/**
 * @board/test-chains' local EVM chain, run in a worker thread. In production the chain is a
 * remote node; started in-process its execution and mining would land on the event loop of
 * the servers being measured, and be counted as theirs. One chain runs at a time: starting
 * one stops the one before.
 */
export class ChainThread {
  private readonly worker: Worker = tsWorker(new URL("./chain-worker.ts", import.meta.url));
  private nextId = 0;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();

  constructor() {
    this.worker.on("message", (reply: ChainReply) => {
      const p = this.pending.get(reply.id);
      this.pending.delete(reply.id);
      if ("error" in reply) p?.reject(new Error(reply.error));
      else p?.resolve(reply.value);
    });
    this.worker.on("error", (err) => {
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
    });
  }

  private call<O extends Op>(op: O, args: Args<O>): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const id = this.nextId++;
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, op, ...args });
    });
  }

  /**
   * A fresh chain: `blockIntervalMs` 0 automines (a block per transaction), otherwise a block
   * every that many ms; `mints` are done during set-up, while it still automines. `engine`:
   * EDR (the default) in the worker thread, or anvil, a process the worker starts and counts.
   */
  async start(accounts: number, opts: { blockIntervalMs?: number; mints?: { to: Address; amount: bigint }[]; engine?: ChainEngine } = {}): Promise<ThreadChain> {
    const mints = (opts.mints ?? []).map(({ to, amount }) => ({ to, amount: amount.toString() }));
    const engine = opts.engine ?? "edr";
    const started = (await this.call("start", { engine, accounts, blockIntervalMs: opts.blockIntervalMs ?? 0, mints })) as { rpcUrl: string; usdc: Address; accounts: Hex[] };
    return {
      rpcUrl: started.rpcUrl,
      chainId: BASE_CHAIN_ID,
      // The same chain definition as startEvmChain's (a viem chain cannot cross threads).
      chain: defineChain({
        id: BASE_CHAIN_ID,
        name: engine === "anvil" ? "Base (local anvil)" : "Base (local EDR)",
        nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
        rpcUrls: { default: { http: [started.rpcUrl] } },
        contracts: { multicall3: { address: MULTICALL3_ADDRESS } },
      }),
      usdc: started.usdc,
      accounts: started.accounts,
      mint: async (to, amount) => (await this.call("mint", { to, amount: amount.toString() })) as Hash,
      balanceOf: async (address) => BigInt((await this.call("balanceOf", { address })) as string),
      requests: async () => (await this.call("requests", {})) as Record<string, number>,
      stop: async () => {
        await this.call("stop", {});
      },
    };
  }

  async close(): Promise<void> {
    await this.call("stop", {}).catch(() => undefined);
    await this.worker.terminate();
  }
}
