import { randomBytes } from "node:crypto";
import type { AddressInfo } from "node:net";
import algosdk from "algosdk";
import { StandInLedger, isEmpty, minBalance, type AcceptedGroup } from "./stand-in-ledger.js";
import { serveAlgodStandIn } from "./stand-in-server.js";
import {
  ALGORAND_MAINNET_GENESIS_HASH,
  ALGORAND_MAINNET_GENESIS_ID,
  ALGORAND_MAINNET_NETWORK,
  ALGORAND_MAINNET_NETWORK_FULL,
  ALGORAND_USDC_ASSET_ID,
} from "./stand-in-network.js";

/**
 * A stand-in for an Algorand mainnet algod node, for tests: no offline Algorand node exists on
 * npm, so tests meet the chain at algod's HTTP boundary. It is not a node: it checks what a node
 * checks for payments and USDC transfers (signatures, group ids, rounds, genesis, fees, opt-ins,
 * balances, duplicates) and refuses everything it does not model (apps, multisig, close-outs...).
 */

const DEFAULT_ACCOUNTS = 4;
const DEFAULT_MICRO_ALGOS = 10_000_000n; // 10 ALGO
const DEFAULT_START_ROUND = 50_000_000n;
const USDC = BigInt(ALGORAND_USDC_ASSET_ID);

export interface StartAlgodStandInOptions {
  /** TCP port on 127.0.0.1; 0 (the default) picks a free one. */
  port?: number;
  /** How many fresh accounts to generate (default 4). */
  accounts?: number;
  /** µAlgos each generated account starts with (default 10 ALGO); no USDC, not opted in. */
  microAlgos?: bigint;
  /** The stand-in's last round at start (default 50,000,000). */
  startRound?: bigint;
}

export interface AlgodStandInAccount {
  address: string;
  /** 64 bytes: ed25519 seed then public key (algosdk's layout). */
  secretKey: Uint8Array;
  mnemonic: string;
  /** secretKey in base64: what @x402/avm's toClientAvmSigner / toFacilitatorAvmSigner take. */
  privateKeyBase64: string;
}

export type AlgodStandInErrorReason = "invalid_address" | "below_min_balance" | "not_opted_in" | "invalid_amount";

export class AlgodStandInError extends Error {
  override readonly name = "AlgodStandInError";
  constructor(
    readonly reason: AlgodStandInErrorReason,
    detail: string,
  ) {
    super(`${reason}: ${detail}`);
  }
}

export interface AlgodStandIn {
  /** algod base URL, e.g. http://127.0.0.1:40123 (algokit `server`, @x402/avm `algodUrl` / `mainnetUrl`). */
  url: string;
  port: number;
  /** The X-Algo-API-Token every request must carry (generated per stand-in). */
  token: string;
  /** CAIP-2 id @x402/avm uses for mainnet (short form). */
  network: typeof ALGORAND_MAINNET_NETWORK;
  /** The same network in full genesis-hash form, which @x402/avm also accepts. */
  networkFull: typeof ALGORAND_MAINNET_NETWORK_FULL;
  genesisId: typeof ALGORAND_MAINNET_GENESIS_ID;
  genesisHash: typeof ALGORAND_MAINNET_GENESIS_HASH;
  usdcAssetId: typeof ALGORAND_USDC_ASSET_ID;
  /** Fresh accounts funded with µAlgos (no USDC opt-in). */
  accounts: readonly AlgodStandInAccount[];
  /** Credits µAlgos (test setup; produces no round). The result must meet the minimum balance. */
  fund(address: string, microAlgos: bigint): void;
  /** Opts `address` into USDC (test setup); its µAlgos must cover the raised minimum balance. */
  optIn(address: string): void;
  /** Credits USDC base units to an opted-in account (test setup, out of thin air). */
  mintUsdc(address: string, amount: bigint): void;
  /** USDC base units held by `address` (0n if not opted in). */
  balanceOf(address: string): bigint;
  /** µAlgos held by `address`. */
  microAlgosOf(address: string): bigint;
  isOptedIn(address: string): boolean;
  currentRound(): bigint;
  /** Produces `count` empty rounds (to expire transactions); returns the new round. */
  advanceRounds(count: number): bigint;
  /** Groups committed through POST /v2/transactions, oldest first. */
  submitted(): readonly AcceptedGroup[];
  /** Closes the HTTP server. Idempotent. */
  stop(): Promise<void>;
}

export async function startAlgodStandIn(opts: StartAlgodStandInOptions = {}): Promise<AlgodStandIn> {
  const ledger = new StandInLedger(opts.startRound ?? DEFAULT_START_ROUND);
  const token = randomBytes(32).toString("hex");
  const server = await serveAlgodStandIn({ port: opts.port ?? 0, token, ledger });
  const port = (server.address() as AddressInfo).port;

  const checkAddress = (address: string): void => {
    if (!algosdk.isValidAddress(address)) throw new AlgodStandInError("invalid_address", address);
  };
  const checkAmount = (amount: bigint): void => {
    if (amount < 0n) throw new AlgodStandInError("invalid_amount", `${amount} is negative`);
  };

  const fund = (address: string, microAlgos: bigint): void => {
    checkAddress(address);
    checkAmount(microAlgos);
    const state = ledger.account(address);
    state.microAlgos += microAlgos;
    if (!isEmpty(state) && state.microAlgos < minBalance(state)) {
      throw new AlgodStandInError("below_min_balance", `${address} would hold ${state.microAlgos} µAlgos, below ${minBalance(state)}`);
    }
    ledger.setAccount(address, state);
  };

  const accounts = Array.from({ length: opts.accounts ?? DEFAULT_ACCOUNTS }, (): AlgodStandInAccount => {
    const { addr, sk } = algosdk.generateAccount();
    const account = {
      address: addr.toString(),
      secretKey: sk,
      mnemonic: algosdk.secretKeyToMnemonic(sk),
      privateKeyBase64: Buffer.from(sk).toString("base64"),
    };
    fund(account.address, opts.microAlgos ?? DEFAULT_MICRO_ALGOS);
    return account;
  });

  let stopped: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    token,
    network: ALGORAND_MAINNET_NETWORK,
    networkFull: ALGORAND_MAINNET_NETWORK_FULL,
    genesisId: ALGORAND_MAINNET_GENESIS_ID,
    genesisHash: ALGORAND_MAINNET_GENESIS_HASH,
    usdcAssetId: ALGORAND_USDC_ASSET_ID,
    accounts,
    fund,
    optIn(address) {
      checkAddress(address);
      const state = ledger.account(address);
      if (state.assets.has(USDC)) return;
      state.assets.set(USDC, 0n);
      if (state.microAlgos < minBalance(state)) {
        throw new AlgodStandInError("below_min_balance", `${address} holds ${state.microAlgos} µAlgos, opting in needs ${minBalance(state)}`);
      }
      ledger.setAccount(address, state);
    },
    mintUsdc(address, amount) {
      checkAddress(address);
      checkAmount(amount);
      const state = ledger.account(address);
      const held = state.assets.get(USDC);
      if (held === undefined) throw new AlgodStandInError("not_opted_in", `${address} has not opted in to USDC`);
      state.assets.set(USDC, held + amount);
      ledger.setAccount(address, state);
    },
    balanceOf: (address) => ledger.account(address).assets.get(USDC) ?? 0n,
    microAlgosOf: (address) => ledger.account(address).microAlgos,
    isOptedIn: (address) => ledger.account(address).assets.has(USDC),
    currentRound: () => ledger.lastRound,
    advanceRounds: (count) => ledger.advance(BigInt(count)),
    submitted: () => ledger.accepted(),
    stop() {
      stopped ??= new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
      return stopped;
    },
  };
}
