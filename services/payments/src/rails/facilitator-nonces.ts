import type { Address } from "viem";
import { getTransactionCount } from "viem/actions";
import { createNonceManager, type NonceManager, type NonceManagerSource } from "viem/nonce";

/**
 * The facilitator account's transaction nonces, counted here once the node has said where they
 * start. viem's default manager asks the node for the pending count before every transaction:
 * on a node holding a mempool that call is the slowest a settlement makes (55 ms median on the
 * bench's 2 s chain, against 5 ms for the broadcast itself), and broadcasts leave one at a
 * time, so every batch behind waited for it. `reset` makes the next transaction ask the node
 * again: base-exact.ts does it after a failed broadcast, the batcher after a batch whose fate
 * is unknown (a dropped transaction would otherwise leave a gap no later one passes).
 */
export function facilitatorNonceManager(): NonceManager {
  const next = new Map<string, number>();
  const key = ({ address, chainId }: { address: Address; chainId: number }) => `${address.toLowerCase()}.${chainId}`;
  const source: NonceManagerSource = {
    async get({ address, chainId, client }) {
      return next.get(key({ address, chainId })) ?? getTransactionCount(client, { address, blockTag: "pending" });
    },
    set(parameters, nonce) {
      next.set(key(parameters), nonce + 1);
    },
  };
  const manager = createNonceManager({ source });
  return {
    consume: (parameters) => manager.consume(parameters),
    get: (parameters) => manager.get(parameters),
    increment: (parameters) => manager.increment(parameters),
    reset(parameters) {
      next.delete(key(parameters));
      manager.reset(parameters);
    },
  };
}

/** The node's words for a transaction refused because its nonce was used already (geth, reth, hardhat): nothing was sent. */
const NONCE_TAKEN = /nonce too low|replacement transaction underpriced/i;

/**
 * Whether a broadcast was refused because another sender used the account's next nonce (another
 * payments replica settling from the same account, an operator's own transaction): the node took
 * nothing, and the transaction can be signed again with the node's count. "already known" is not
 * one: that transaction itself is in the node's pool.
 */
export function nonceTaken(err: unknown): boolean {
  for (let e = err, depth = 0; typeof e === "object" && e !== null && depth < 6; depth++) {
    const { message, details, cause } = e as { message?: unknown; details?: unknown; cause?: unknown };
    if ((typeof details === "string" && NONCE_TAKEN.test(details)) || (typeof message === "string" && NONCE_TAKEN.test(message))) return true;
    e = cause;
  }
  return false;
}
