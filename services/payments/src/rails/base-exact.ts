import type { Rail } from "@board/proto";
import type { FacilitatorClient, ResourceConfig } from "@x402/core/server";
import type { PaymentRequirements } from "@x402/core/types";
import type { x402Facilitator } from "@x402/core/facilitator";
import { toFacilitatorEvmSigner, type FacilitatorEvmSigner } from "@x402/evm";
import { registerExactEvmScheme } from "@x402/evm/exact/facilitator";
import { ExactEvmScheme as ExactEvmServer } from "@x402/evm/exact/server";
import { createPublicClient, createWalletClient, defineChain, getAddress, http, parseAbiItem, publicActions, recoverAddress, type Address, type Hex, type PublicClient } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { SettlementBatcher } from "../settlement/batcher.js";
import { readEip3009, verifyEip3009Locally, type Recover } from "./eip3009-local-verify.js";
import { eip3009Terms } from "./eip3009-terms.js";
import { loadNativeSecp256k1, recoverNative, withNativeEcdsa } from "./native-ecdsa.js";
import { facilitatorNonceManager, nonceTaken } from "./facilitator-nonces.js";
import { rpcFetch } from "./rpc-fetch.js";
import type { AnyPaymentPayload } from "./payload.js";
import type { X402Rail } from "./rail.js";
import type { RailNotes } from "./rail-watch.js";

export const BASE_NETWORK = "eip155:8453" as const;
export const BASE_CHAIN_ID = 8453;
/** EIP-712 domain of Base USDC: clients sign EIP-3009 authorizations against it. */
export const USDC_DOMAIN = { name: "USD Coin", version: "2" } as const;

export interface BaseConfig {
  payTo: Address;
  rpcUrl: string;
  facilitatorKey: Hex;
  usdc: Address;
  /** Who recovers EOA signatures: libsecp256k1 (native, the default) or viem's pure JS. */
  verifier: "native" | "viem";
  /** Told each JSON-RPC method sent to the Base node. */
  onChainCall?: (method: string) => void;
}


/**
 * The facilitator's account on Base. One account settles concurrently, so its transaction
 * nonces come from one nonce manager (facilitator-nonces.ts; "nonce too low" otherwise).
 */
const baseChain = (rpcUrl: string) =>
  defineChain({
    id: BASE_CHAIN_ID,
    name: "Base",
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });

/** The facilitator's signer, and how to make its next transaction ask the node for the account's nonce again. */
export type BaseSigner = FacilitatorEvmSigner & { resyncNonces(): void };

export function baseSigner(cfg: Pick<BaseConfig, "rpcUrl" | "facilitatorKey" | "verifier" | "onChainCall">): BaseSigner {
  const chain = baseChain(cfg.rpcUrl);
  const nonces = facilitatorNonceManager();
  const account = privateKeyToAccount(cfg.facilitatorKey, { nonceManager: nonces });
  const client = createWalletClient({ account, chain, transport: http(cfg.rpcUrl, { retryCount: 1, fetchFn: rpcFetch(undefined, cfg.onChainCall) }), pollingInterval: 100 }).extend(
    publicActions,
  );
  const resyncNonces = () => nonces.reset({ address: account.address, chainId: BASE_CHAIN_ID });
  // Transactions leave in nonce order, one broadcast at a time (waiting for receipts stays
  // concurrent): a node that cannot queue a future nonce would refuse one that overtook its
  // predecessor on the wire. A broadcast that fails gives its nonce back; one refused because
  // another sender took the nonce is signed once more with the node's count.
  const inOrder = serialized();
  const broadcast = <T>(send: () => Promise<T>) =>
    inOrder(async () => {
      try {
        return await send();
      } catch (err) {
        resyncNonces();
        if (!nonceTaken(err)) throw err;
      }
      try {
        return await send();
      } catch (err) {
        resyncNonces();
        throw err;
      }
    });
  const signer = toFacilitatorEvmSigner({
    ...client,
    address: account.address,
    writeContract: (args: Parameters<FacilitatorEvmSigner["writeContract"]>[0]) =>
      broadcast(() => client.writeContract(args as Parameters<typeof client.writeContract>[0])),
    sendTransaction: (args: Parameters<FacilitatorEvmSigner["sendTransaction"]>[0]) => broadcast(() => client.sendTransaction(args)),
  } as unknown as Parameters<typeof toFacilitatorEvmSigner>[0]);
  return Object.assign(cfg.verifier === "viem" ? signer : withNativeEcdsa(signer, nativeOrFail()), { resyncNonces });
}

function nativeOrFail() {
  const native = loadNativeSecp256k1();
  if (!native) throw new Error("EVM_VERIFIER=native but the secp256k1 native addon cannot load");
  return native;
}

/** Who recovers a payer from an EIP-712 digest, as EVM_VERIFIER says. */
export function baseRecover(verifier: BaseConfig["verifier"]): Recover {
  if (verifier === "viem") return (hash, signature) => recoverAddress({ hash, signature }).catch(() => null);
  const native = nativeOrFail();
  return (digest, signature) => recoverNative(native, digest, signature);
}

/** A reader on the Base node (calls, receipts, logs). */
export function baseReader(cfg: Pick<BaseConfig, "rpcUrl" | "onChainCall">): PublicClient {
  return createPublicClient({ chain: baseChain(cfg.rpcUrl), transport: http(cfg.rpcUrl, { retryCount: 1, fetchFn: rpcFetch(undefined, cfg.onChainCall) }) });
}

/** Runs tasks one after another, in call order. */
function serialized() {
  let tail: Promise<unknown> = Promise.resolve();
  return <T>(task: () => Promise<T>): Promise<T> => {
    const run = tail.then(task, task);
    tail = run.catch(() => undefined);
    return run;
  };
}

/** The payer, nonce and deadline of the EIP-3009 authorization inside an exact payload, or null when it is missing or malformed (eip3009-terms.ts). */
export function eip3009Authorization(payload: AnyPaymentPayload): { from: Address; nonce: Hex; validBefore: bigint } | null {
  const t = eip3009Terms(payload);
  return t && { from: t.from, nonce: t.nonce, validBefore: t.validBefore };
}

/** A reconciliation that cannot decide yet (reconcile.ts leaves the claim open on `reason: "reconcile_pending"`). */
export class BaseRailError extends Error {
  override readonly name = "BaseRailError";
  constructor(
    readonly reason: "reconcile_pending",
    detail: string,
  ) {
    super(`${reason}: ${detail}`);
  }
}

const LOG_WINDOW_BLOCKS = 50_000n;
const authorizationUsed = parseAbiItem("event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)");
const authorizationStateAbi = [parseAbiItem("function authorizationState(address authorizer, bytes32 nonce) view returns (bool)")] as const;

/** Base USDC, exact scheme, EIP-3009 transferWithAuthorization settled by our own facilitator. */
export function baseExactRail(
  cfg: BaseConfig,
  signer: FacilitatorEvmSigner,
  reader: PublicClient,
  batcher: SettlementBatcher | null,
  /** What the rail needs of its chain, asked at each bring-up (base-chain-check.ts). */
  check: () => Promise<RailNotes>,
): X402Rail {
  const usdc = getAddress(cfg.usdc);
  const recover = baseRecover(cfg.verifier);
  const [facilitatorAddress] = signer.getAddresses();
  /** Whether the facilitator's account has transactions sent but not yet mined. */
  const pendingTransactions = async () => {
    if (!facilitatorAddress) return false;
    const [pending, mined] = await Promise.all([
      reader.getTransactionCount({ address: facilitatorAddress, blockTag: "pending" }),
      reader.getTransactionCount({ address: facilitatorAddress, blockTag: "latest" }),
    ]);
    return pending > mined;
  };
  return {
    rail: "base" satisfies Rail,
    network: BASE_NETWORK,
    networkAliases: [],
    v1Network: "base",
    server: new ExactEvmServer(),
    resourceConfig(amount: bigint, maxTimeoutSeconds: number): ResourceConfig {
      return {
        scheme: "exact",
        network: BASE_NETWORK,
        payTo: getAddress(cfg.payTo),
        price: { amount: amount.toString(), asset: usdc, extra: { ...USDC_DOMAIN } },
        maxTimeoutSeconds,
      };
    },
    owns: (r: PaymentRequirements) => r.network === BASE_NETWORK && r.scheme === "exact" && r.extra?.["name"] !== "GatewayWalletBatched",
    // Its chain, the token and its EIP-712 domain, Multicall3, the facilitator's gas: once per
    // bring-up, not per read (x402's facilitator checks the asset is a contract at each verification).
    probe: check,
    register(facilitator: x402Facilitator) {
      registerExactEvmScheme(facilitator, { signer, networks: BASE_NETWORK });
    },
    facilitator: (ours: FacilitatorClient) => ours,
    paymentKey(payload) {
      const a = eip3009Authorization(payload);
      // EIP-3009 nonces are unique per token and authorizer: the chain itself enforces this pair.
      return a ? `eip3009:${BASE_CHAIN_ID}:${usdc.toLowerCase()}:${a.from.toLowerCase()}:${a.nonce.toLowerCase()}` : null;
    },
    payer: (payload) => eip3009Authorization(payload)?.from ?? null,
    ...(batcher && {
      batched: {
        async verify(payload, requirement) {
          const verified = await verifyEip3009Locally(payload, requirement, BASE_CHAIN_ID, recover);
          // Claimed next and settled once its read is served: the open batch waits for it.
          if (verified?.ok) batcher.expect(verified.authorization);
          return verified;
        },
        settle(payload, ready, early) {
          const authorization = readEip3009(payload);
          if (authorization === null || authorization === "malformed") throw new Error("a claimed payment no longer reads as an EIP-3009 authorization");
          return batcher.settleEarly(authorization, ready ?? Promise.resolve(true), early ?? (() => Promise.resolve(false)));
        },
      },
    }),
    async reconcile(payload) {
      const a = eip3009Authorization(payload);
      if (!a) return { settled: false, expired: true };
      const used = await reader.readContract({ address: usdc, abi: authorizationStateAbi, functionName: "authorizationState", args: [a.from, a.nonce] });
      if (!used) {
        const expired = a.validBefore * 1000n < BigInt(Date.now());
        // Not on chain yet. A settlement of ours sent before a restart, or whose receipt never
        // came, may still wait in the mempool: released now, the payment could be presented
        // again and the first transaction land after all (charged, recorded as released).
        // While the authorization can still land and our account has transactions pending,
        // the claim waits for a later pass.
        if (!expired && (await pendingTransactions())) throw new BaseRailError("reconcile_pending", "a settlement of ours may still land; the claim stays open");
        return { settled: false, expired };
      }
      // Claims are reconciled within hours; ~28 hours of Base blocks bounds the log query.
      const latest = await reader.getBlockNumber();
      const fromBlock = latest > LOG_WINDOW_BLOCKS ? latest - LOG_WINDOW_BLOCKS : 0n;
      const [log] = await reader.getLogs({ address: usdc, event: authorizationUsed, args: { authorizer: a.from, nonce: a.nonce }, fromBlock });
      return { settled: true, transaction: log?.transactionHash ?? "" };
    },
  };
}
