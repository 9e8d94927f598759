import { startEvmChain, type EvmChain } from "@board/test-chains/evm";
import { createPublicClient, createWalletClient, http, type Hex, type PublicClient } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { baseSigner } from "../../src/rails/base-exact.js";
import { nonceTaken } from "../../src/rails/facilitator-nonces.js";

// The facilitator's nonces counted in the process, on the real local chain: the node is asked
// for the account's count once, again only after a reset, and a nonce another sender took is
// recovered from by signing once more.

let chain: EvmChain;
let rpc: PublicClient;
const to = privateKeyToAccount(generatePrivateKey()).address;

beforeAll(async () => {
  chain = await startEvmChain({ accounts: 1 });
  rpc = createPublicClient({ chain: chain.chain, transport: http(chain.rpcUrl) });
});
afterAll(async () => {
  await chain?.stop();
});

function facilitator() {
  const calls: string[] = [];
  const signer = baseSigner({ rpcUrl: chain.rpcUrl, facilitatorKey: chain.accounts[0] as Hex, verifier: "native", onChainCall: (m) => calls.push(m) });
  const counts = () => calls.filter((m) => m === "eth_getTransactionCount").length;
  const send = async () => {
    const hash = (await signer.sendTransaction({ to, data: "0x" })) as Hex;
    return rpc.waitForTransactionReceipt({ hash, pollingInterval: 20 });
  };
  return { signer, counts, send };
}

describe("the facilitator's nonces", () => {
  it("are asked of the node once, then counted here: three transactions, one eth_getTransactionCount, nonces in a row", async () => {
    const { counts, send } = facilitator();
    const receipts = [await send(), await send(), await send()];
    expect(receipts.map((r) => r.status)).toEqual(["success", "success", "success"]);
    const nonces = await Promise.all(receipts.map(async (r) => (await rpc.getTransaction({ hash: r.transactionHash })).nonce));
    expect(nonces[1]).toBe((nonces[0] as number) + 1);
    expect(nonces[2]).toBe((nonces[0] as number) + 2);
    expect(counts()).toBe(1);
  });

  it("a nonce another sender took (another replica, an operator) is signed again with the node's count: the transaction is mined, nothing is lost", async () => {
    const { counts, send } = facilitator();
    await send();
    expect(counts()).toBe(1);
    // The same account, from elsewhere: its next nonce is now used.
    const other = createWalletClient({ account: privateKeyToAccount(chain.accounts[0] as Hex), chain: chain.chain, transport: http(chain.rpcUrl) });
    await rpc.waitForTransactionReceipt({ hash: await other.sendTransaction({ to, value: 1n }), pollingInterval: 20 });
    const before = await rpc.getTransactionCount({ address: privateKeyToAccount(chain.accounts[0] as Hex).address });
    const receipt = await send();
    expect(receipt.status).toBe("success");
    expect((await rpc.getTransaction({ hash: receipt.transactionHash })).nonce).toBe(before);
    expect(counts()).toBe(2);
    // And counted here again after it.
    await send();
    expect(counts()).toBe(2);
  });

  it("resyncNonces makes the next transaction ask the node again (after a batch whose fate is unknown)", async () => {
    const { signer, counts, send } = facilitator();
    await send();
    signer.resyncNonces();
    await send();
    expect(counts()).toBe(2);
  });

  it("a refusal for another reason is not signed again: it is thrown, and the next transaction asks the node", async () => {
    const { signer, counts, send } = facilitator();
    await send();
    const before = counts();
    // More gas than a block holds: the node refuses it, not for its nonce.
    await expect(signer.sendTransaction({ to, data: "0x", gas: 10n ** 12n } as Parameters<typeof signer.sendTransaction>[0])).rejects.toThrow();
    await send();
    expect(counts()).toBe(before + 1);
  });

  it("nonceTaken reads the node's words, through viem's causes", () => {
    const viemLike = (details: string) => Object.assign(new Error("Transaction creation failed."), { cause: Object.assign(new Error("RPC error"), { details }) });
    expect(nonceTaken(viemLike("Nonce too low. Expected nonce to be 5 but got 4."))).toBe(true);
    expect(nonceTaken(viemLike("replacement transaction underpriced"))).toBe(true);
    expect(nonceTaken(viemLike("already known"))).toBe(false);
    expect(nonceTaken(viemLike("insufficient funds for gas * price + value"))).toBe(false);
    expect(nonceTaken(new Error("fetch failed"))).toBe(false);
  });
});
