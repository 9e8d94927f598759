import { parentPort } from "node:worker_threads";
import { startAnvilChain, startEvmChain, type EvmChain } from "@board/test-chains/evm";
import type { Address } from "viem";
import type { ChainReply, ChainRequest } from "./chain.js";

/**
 * The local chains' own thread: a node answers JSON-RPC here, not on the servers' event loop.
 * One chain at a time; every chain of a run lives in this one thread (EDR keeps one context
 * per thread and warns when a process makes a second).
 */
let chain: EvmChain | null = null;
/** JSON-RPC requests the running chain has served over HTTP, by method. */
let requests: Record<string, number> = {};

async function handle(req: ChainRequest): Promise<unknown> {
  switch (req.op) {
    case "start": {
      await chain?.stop();
      requests = {};
      chain = await (req.engine === "anvil" ? startAnvilChain : startEvmChain)({
        accounts: req.accounts,
        blockIntervalMs: req.blockIntervalMs,
        mints: req.mints.map(({ to, amount }) => ({ to: to as Address, amount: BigInt(amount) })),
        onRequest: (method) => void (requests[method] = (requests[method] ?? 0) + 1),
      });
      return { rpcUrl: chain.rpcUrl, usdc: chain.usdc, accounts: [...chain.accounts] };
    }
    case "mint":
      if (!chain) throw new Error("no chain is running");
      return chain.mint(req.to as Address, BigInt(req.amount));
    case "balanceOf":
      if (!chain) throw new Error("no chain is running");
      return (await chain.balanceOf(req.address as Address)).toString();
    case "requests":
      return { ...requests };
    case "stop":
      await chain?.stop();
      chain = null;
      return null;
  }
}

parentPort?.on("message", (req: ChainRequest) => {
  handle(req).then(
    (value) => parentPort?.postMessage({ id: req.id, value } satisfies ChainReply),
    (err: unknown) => parentPort?.postMessage({ id: req.id, error: err instanceof Error ? err.message : String(err) } satisfies ChainReply),
  );
});
