import type { BaseSigner } from "../rails/base-exact.js";
import { isHex, type Hex, type PublicClient } from "viem";
import type { Call3 } from "./aggregate3.js";
import { baseBatchChain } from "./base-batch-chain.js";
import { feeCache } from "./base-fees.js";
import type { BatchChain } from "./batcher.js";

/**
 * One transferWithAuthorization's gas limit, sent on its own: 92k measured alone with its 21k
 * base (base-batch-chain.ts), and a margin, as a batch's limit leaves. Unused gas is not paid.
 */
export const SINGLE_TRANSFER_GAS = 150_000n;

/**
 * The settlement chain on Base without Multicall3 (a devnet, a fork, another chain without it
 * at its canonical address): each payment is its own transaction, straight to the token, so
 * the batcher sends batches of one. The simulation is one eth_call of the transfer from our
 * account; the receipt, block number and nonce resync are the batch chain's (the token's own
 * logs are read the same way).
 */
export function baseSingleChain(signer: BaseSigner, reader: PublicClient): BatchChain {
  const [account] = signer.getAddresses();
  const fees = feeCache(reader);
  const { receipt, blockNumber, resync } = baseBatchChain(signer, reader);
  return {
    simulate(calls) {
      return Promise.all(
        calls.map(async (call) => {
          try {
            await reader.request({ method: "eth_call", params: [{ from: account, to: call.target, data: call.callData }, "latest"] });
            return { success: true, returnData: "0x" as Hex };
          } catch (err) {
            // The token refused it (the batch's allowFailure result, as aggregate3 would give); anything else is the node's failure.
            const data = revertData(err);
            if (data === null) throw err;
            return { success: false, returnData: data };
          }
        }),
      );
    },
    async send(calls) {
      const [call, ...more] = calls as [Call3, ...Call3[]];
      if (more.length > 0) throw new Error("without Multicall3 a transaction carries one payment");
      const { maxFeePerGas, maxPriorityFeePerGas } = await fees();
      // baseSigner's sendTransaction hands these to viem's as they are (the x402 signer type names only to and data).
      const send = signer.sendTransaction as (args: { to: Hex; data: Hex; gas: bigint; maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }) => Promise<Hex>;
      return send({ to: call.target, data: call.callData, gas: SINGLE_TRANSFER_GAS, maxFeePerGas, maxPriorityFeePerGas });
    },
    receipt,
    blockNumber,
    resync,
  };
}

/** JSON-RPC's code for a reverted call (geth, reth, Base's nodes). */
const EXECUTION_REVERTED = 3;

/**
 * The revert data of an eth_call the node answered as reverted ("0x" when it gave none), or
 * null when the error is not a revert (no answer, a server error): viem keeps the node's error
 * code, data and text on an error of its cause chain.
 */
export function revertData(err: unknown): Hex | null {
  for (let e = err, depth = 0; typeof e === "object" && e !== null && depth < 6; depth++) {
    const { code, data, details, cause } = e as { code?: unknown; data?: unknown; details?: unknown; cause?: unknown };
    const reverted = code === EXECUTION_REVERTED || (typeof code === "number" && typeof details === "string" && /execution reverted/i.test(details));
    // geth and Base's nodes put the revert data in `data`; hardhat's server one level down.
    const inner = typeof data === "object" && data !== null ? (data as { data?: unknown }).data : data;
    if (reverted) return typeof inner === "string" && isHex(inner) ? inner : "0x";
    e = cause;
  }
  return null;
}
