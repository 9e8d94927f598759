import { fileURLToPath } from "node:url";
import type { EIP1193Provider, RequestArguments } from "hardhat/types/provider.js";
import {
  createPublicClient,
  createWalletClient,
  decodeAbiParameters,
  defineChain,
  getAddress,
  http,
  isHex,
  numberToHex,
  pad,
  slice,
  toHex,
  type Address,
  type Chain,
  type Hash,
  type Hex,
} from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { eip3009TokenArtifact } from "./artifacts/EIP3009Token.js";
import { eip5267TokenArtifact } from "./artifacts/EIP5267Token.js";
import { multicall3Artifact } from "./artifacts/Multicall3.js";

export const BASE_CHAIN_ID = 8453;
/** Circle's USDC on Base mainnet. */
export const BASE_USDC_ADDRESS: Address = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913";
/** EIP-712 domain name and version of Base USDC (and of the local token). */
export const USDC_EIP712_NAME = "USD Coin";
export const USDC_EIP712_VERSION = "2";

/**
 * Multicall3's canonical address (the same on Base and most EVM chains). x402's facilitator
 * calls tryAggregate there to explain a failed simulation (e.g. insufficient balance).
 */
export const MULTICALL3_ADDRESS: Address = "0xcA11bde05977b3631167028862bE2a173976CA11";

export const eip3009TokenAbi = eip3009TokenArtifact.abi;
export const multicall3Abi = multicall3Artifact.abi;

/** Slot of `owner` in EIP3009Token.sol (its first state variable). */
const OWNER_SLOT = 0n;
/** Slots of EIP5267Token's domain name and version (after EIP3009Token's five). */
const DOMAIN_NAME_SLOT = 5n;
const DOMAIN_VERSION_SLOT = 6n;
const DEFAULT_ACCOUNTS = 4;
const DEFAULT_ETH_BALANCE = 10n ** 21n; // 1,000 ETH
const HOSTNAME = "127.0.0.1";
/** JSON-RPC error code geth, reth and Base's nodes use for a reverted call. */
const EXECUTION_REVERTED_CODE = 3;
const ERROR_STRING_SELECTOR = "0x08c379a0"; // Error(string)

export interface StartEvmChainOptions {
  /** TCP port; 0 (the default) picks a free one. */
  port?: number;
  /** The address to listen on: 127.0.0.1 (the default), or one that containers can reach (the container tests). */
  hostname?: string;
  /** How many funded accounts to generate (default 4). */
  accounts?: number;
  /** ETH balance of each generated account, in wei (default 1,000 ETH). */
  ethBalance?: bigint;
  /** Told the method of every JSON-RPC request served over HTTP (the bench counts chain calls per read with it). */
  onRequest?: (method: string) => void;
  /**
   * Mine a block every this many milliseconds, automine off, as a real chain does (Base: 2,000).
   * 0 or absent: automine, one block per transaction at once. Set-up (code, balances, `mints`)
   * is done with automine, then the node switches. On an interval chain, blocks may share a
   * timestamp (hardhat's allowBlocksWithSameTimestamp), so a block every 100 ms does not run
   * the chain's clock ahead of the wall clock by a second per block.
   */
  blockIntervalMs?: number;
  /** USDC minted during set-up, while the node still automines (a later `mint` on an interval chain waits for its block). */
  mints?: ReadonlyArray<{ to: Address; amount: bigint }>;
  /** The chain id (default 8453, Base's); another makes a chain that is not Base, as an RPC pointed elsewhere serves. */
  chainId?: number;
  /** Whether Multicall3 is at its canonical address (default true); false makes a chain without it, as a devnet or a fork may be. */
  multicall3?: boolean;
  /**
   * The EIP-712 domain name and version the token at the USDC address signs in, and reports by
   * EIP-5267's eip712Domain() (EIP5267Token; names under 32 bytes). Absent: Base USDC's ("USD
   * Coin", "2"), reported by name() and version() only, as FiatToken does.
   */
  usdcDomain?: { name: string; version: string };
}

export interface EvmChain {
  /** HTTP JSON-RPC endpoint (the same server also speaks WebSocket on this port). */
  rpcUrl: string;
  /** 8453 unless told otherwise (StartEvmChainOptions.chainId). */
  chainId: number;
  /**
   * A viem chain for this node: id 8453, rpcUrls pointing at rpcUrl, Multicall3 at its canonical
   * address (so viem's `multicall` works), no OP-stack formatters.
   */
  chain: Chain;
  /** The EIP-3009 token, at the Base USDC address. */
  usdc: Address;
  /** Private keys of fresh accounts, funded with ETH (no USDC: use mint). */
  accounts: readonly Hex[];
  /** Mints USDC base units (6 decimals) to `to`; resolves once mined (automine: at once; blockIntervalMs: with the next block). */
  mint(to: Address, amount: bigint): Promise<Hash>;
  balanceOf(address: Address): Promise<bigint>;
  /** Closes the JSON-RPC server. Idempotent. */
  stop(): Promise<void>;
}

/**
 * Starts Hardhat's EDR node in this process, served over HTTP on 127.0.0.1 (or opts.hostname), with chainId 8453,
 * automine on and interval mining off (or, with opts.blockIntervalMs, the other way round once
 * set up), EIP3009Token's runtime code at the Base USDC address and Multicall3's at its
 * canonical address (or, as told: another chain id, no Multicall3, a token in another domain).
 *
 * This is what `hardhat node` does, minus the config file, the HRE and the CLI: resolve a
 * network config, `createProvider(config, "hardhat")`, serve it with hardhat's JsonRpcServer.
 * Those are hardhat-internal modules, stable within hardhat 2.29 (pinned in the root package).
 */
export async function startEvmChain(opts: StartEvmChainOptions = {}): Promise<EvmChain> {
  const blockIntervalMs = opts.blockIntervalMs ?? 0;
  const chainId = opts.chainId ?? BASE_CHAIN_ID;
  if (!Number.isSafeInteger(blockIntervalMs) || blockIntervalMs < 0) throw new Error(`blockIntervalMs must be a whole number of milliseconds >= 0, not ${blockIntervalMs}`);

  const [{ resolveConfig }, { createProvider }, { JsonRpcServer }, { ProviderError }] = await Promise.all([
    import("hardhat/internal/core/config/config-resolution.js"),
    import("hardhat/internal/core/providers/construction.js"),
    import("hardhat/internal/hardhat-network/jsonrpc/server.js"),
    import("hardhat/internal/core/providers/errors.js"),
  ]);

  // resolveConfig only needs an existing file to anchor project paths (cache/artifacts dirs,
  // which the hardhat network never touches without forking): use this module's own file.
  const config = resolveConfig(fileURLToPath(import.meta.url), {
    networks: {
      hardhat: {
        chainId,
        accounts: [],
        // Set-up always automines; an interval chain switches after it (below).
        mining: { auto: true, interval: 0 },
        allowBlocksWithSameTimestamp: blockIntervalMs > 0,
        // Like a real node: a reverting transaction is mined with status 0 and its hash is
        // returned, instead of eth_sendRawTransaction failing. (Calls and gas estimates that
        // revert still fail, as everywhere.)
        throwOnTransactionFailures: false,
        loggingEnabled: false,
      },
    },
  });
  const provider = await createProvider(config, "hardhat");
  const served = withGethStyleReverts(provider, (message, data, parent) => {
    const error = new ProviderError(message, EXECUTION_REVERTED_CODE, parent);
    error.data = data;
    return error;
  });
  const onRequest = opts.onRequest;
  const counted = onRequest
    ? new Proxy(served, {
        get(target, property) {
          if (property === "request")
            return (args: RequestArguments) => {
              onRequest(args.method);
              return target.request(args);
            };
          const value: unknown = Reflect.get(target, property, target);
          return typeof value === "function" ? value.bind(target) : value;
        },
      })
    : served;
  const hostname = opts.hostname ?? HOSTNAME;
  const server = new JsonRpcServer({ hostname, port: opts.port ?? 0, provider: counted });
  const { port } = await server.listen();
  const rpcUrl = `http://${hostname}:${port}/`;

  let stopped: Promise<void> | undefined;
  // The provider outlives its server: an interval chain's miner is stopped, or it would go on
  // mining empty blocks in this process.
  const stopMining = async () => {
    if (blockIntervalMs > 0) await provider.request({ method: "evm_setIntervalMining", params: [0] }).catch(() => undefined);
  };
  const stop = (): Promise<void> => (stopped ??= server.close().finally(stopMining));

  try {
    // Set-up goes straight to the in-process provider, not over HTTP.
    return await setUpChain({
      request: (method, params) => provider.request({ method, params }),
      rpcUrl,
      name: "Base (local EDR)",
      opts,
      toInterval: async () => {
        await provider.request({ method: "evm_setAutomine", params: [false] });
        await provider.request({ method: "evm_setIntervalMining", params: [blockIntervalMs] });
      },
      stop,
    });
  } catch (error) {
    await stop();
    throw error;
  }
}

/** A node's JSON-RPC, as set-up asks it (EIP-1193's request, method and params). */
export type NodeRequest = (method: string, params: unknown[]) => Promise<unknown>;

/**
 * What every local EVM node is given once it answers (hardhat's EDR here, anvil in anvil.ts):
 * the token's code at the Base USDC address and Multicall3's, the token's owner, funded fresh
 * accounts, `opts.mints` while the node automines, then `toInterval` when a block interval is
 * asked. The chain the caller gets; `stop` is the caller's, and is not called on failure.
 */
export async function setUpChain(node: { request: NodeRequest; rpcUrl: string; name: string; opts: StartEvmChainOptions; toInterval: () => Promise<void>; stop: () => Promise<void> }): Promise<EvmChain> {
  const { request, rpcUrl, opts } = node;
  const accountCount = opts.accounts ?? DEFAULT_ACCOUNTS;
  const ethBalance = opts.ethBalance ?? DEFAULT_ETH_BALANCE;
  const chainId = opts.chainId ?? BASE_CHAIN_ID;
  const minterKey = generatePrivateKey();
  const minter = privateKeyToAccount(minterKey);
  const accounts = Array.from({ length: accountCount }, () => generatePrivateKey());

  const domain = opts.usdcDomain;
  await request("hardhat_setCode", [BASE_USDC_ADDRESS, (domain ? eip5267TokenArtifact : eip3009TokenArtifact).deployedBytecode]);
  if (opts.multicall3 ?? true) await request("hardhat_setCode", [MULTICALL3_ADDRESS, multicall3Artifact.deployedBytecode]);
  await request("hardhat_setStorageAt", [BASE_USDC_ADDRESS, numberToHex(OWNER_SLOT), pad(minter.address)]);
  if (domain) {
    for (const [slot, text] of [[DOMAIN_NAME_SLOT, domain.name], [DOMAIN_VERSION_SLOT, domain.version]] as const) {
      await request("hardhat_setStorageAt", [BASE_USDC_ADDRESS, numberToHex(slot), shortStringSlot(text)]);
    }
  }
  for (const address of [minter.address, ...accounts.map((key) => privateKeyToAccount(key).address)]) {
    await request("hardhat_setBalance", [address, numberToHex(ethBalance)]);
  }

  const chain = defineChain({
    id: chainId,
    name: node.name,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
    ...((opts.multicall3 ?? true) && { contracts: { multicall3: { address: MULTICALL3_ADDRESS } } }),
  });
  const transport = http(rpcUrl);
  const publicClient = createPublicClient({ chain, transport, pollingInterval: 50 });
  const minterClient = createWalletClient({ account: minter, chain, transport, pollingInterval: 50 });

  const owner = await publicClient.readContract({
    address: BASE_USDC_ADDRESS,
    abi: eip3009TokenAbi,
    functionName: "owner",
  });
  if (getAddress(owner) !== minter.address) {
    throw new Error(`EIP3009Token owner slot is not ${OWNER_SLOT}: owner() returned ${owner}`);
  }
  if (domain) {
    const name = await publicClient.readContract({ address: BASE_USDC_ADDRESS, abi: eip3009TokenAbi, functionName: "name" });
    if (name !== domain.name) throw new Error(`EIP5267Token name slot is not ${DOMAIN_NAME_SLOT}: name() returned ${name}`);
  }

  const mint = async (to: Address, amount: bigint): Promise<Hash> => {
    const hash = await minterClient.writeContract({
      address: BASE_USDC_ADDRESS,
      abi: eip3009TokenAbi,
      functionName: "mint",
      args: [to, amount],
    });
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    if (receipt.status !== "success") throw new Error(`mint ${hash} reverted`);
    return hash;
  };
  // One minter account: one mint after another (each mined at once while automine is on).
  for (const { to, amount } of opts.mints ?? []) await mint(to, amount);
  if ((opts.blockIntervalMs ?? 0) > 0) await node.toInterval();

  return {
    rpcUrl,
    chainId,
    chain,
    usdc: BASE_USDC_ADDRESS,
    accounts,
    mint,
    balanceOf(address) {
      return publicClient.readContract({
        address: BASE_USDC_ADDRESS,
        abi: eip3009TokenAbi,
        functionName: "balanceOf",
        args: [address],
      });
    },
    stop: node.stop,
  };
}

/** A Solidity string shorter than 32 bytes as its storage slot holds it: the bytes left-aligned, twice the length in the last byte. */
function shortStringSlot(text: string): Hex {
  const bytes = new TextEncoder().encode(text);
  if (bytes.length > 31) throw new Error(`usdcDomain strings must be under 32 bytes: ${text}`);
  const slot = new Uint8Array(32);
  slot.set(bytes);
  slot[31] = bytes.length * 2;
  return toHex(slot);
}

/**
 * Hardhat's JSON-RPC server reports a revert as -32603 "Internal error". viem retries -32603
 * (3 retries, 150/300/600 ms backoff), so every reverted eth_call/eth_estimateGas would take
 * about a second, and the error would not look like Base's. This wraps the provider so that
 * reverts are reported as real nodes do: code 3, "execution reverted[: reason]", and the
 * revert data (in hardhat's server that lands in error.data.data, which viem reads).
 */
function withGethStyleReverts<P extends EIP1193Provider>(
  provider: P,
  makeError: (message: string, data: Hex, parent: Error) => Error,
): P {
  const request = async (args: RequestArguments): Promise<unknown> => {
    try {
      return await provider.request(args);
    } catch (error) {
      // Reverts come out of EDR as hardhat's SolidityError: not a ProviderError, hex `data`.
      if (error instanceof Error && !("_isProviderError" in error) && "data" in error && isHex(error.data)) {
        throw makeError(revertMessage(error.data), error.data, error);
      }
      throw error;
    }
  };
  return new Proxy(provider, {
    get(target, property) {
      if (property === "request") return request;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

function revertMessage(data: Hex): string {
  if (data.startsWith(ERROR_STRING_SELECTOR)) {
    try {
      const [reason] = decodeAbiParameters([{ type: "string" }], slice(data, 4));
      return `execution reverted: ${reason}`;
    } catch {
      // Malformed Error(string) payload: fall through.
    }
  }
  return "execution reverted";
}
