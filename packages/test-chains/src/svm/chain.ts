import { getBase58Codec, type Address } from "@solana/kit";
import { Account } from "litesvm/dist/internal.js";
import { generateKeypair, type SvmKeypair } from "./keys.js";
import { RENT_EXEMPT_EPOCH, SvmLedger } from "./ledger.js";
import { createRpcMethods } from "./rpc.js";
import { serveJsonRpc } from "./server.js";
import {
  MINT_SIZE,
  TOKEN_PROGRAM,
  associatedTokenAddress,
  createAtaIdempotentInstruction,
  decodeTokenAccount,
  encodeMint,
  mintToInstruction,
} from "./spl.js";
import { buildSignedTransaction, decodeTransaction } from "./wire.js";

/** CAIP-2 id of Solana mainnet (the first 32 characters of its genesis hash). */
export const SOLANA_MAINNET_NETWORK = "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp";
/** Circle's USDC mint on Solana mainnet (SPL Token, 6 decimals). */
export const SOLANA_USDC_MINT = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v" as Address;
export const SOLANA_USDC_DECIMALS = 6;

const HOST = "127.0.0.1";
const DEFAULT_ACCOUNTS = 4;
const DEFAULT_LAMPORTS = 100n * 1_000_000_000n; // 100 SOL

const base58 = getBase58Codec();

export interface StartSvmChainOptions {
  /** TCP port on 127.0.0.1; 0 (the default) picks a free one. */
  port?: number;
  /** How many funded keypairs to generate (default 4). */
  accounts?: number;
  /** SOL balance of each generated keypair, in lamports (default 100 SOL). */
  lamports?: bigint;
}

export type SvmChainErrorReason = "mint_failed";

export class SvmChainError extends Error {
  override readonly name = "SvmChainError";
  constructor(
    readonly reason: SvmChainErrorReason,
    detail: string,
  ) {
    super(`${reason}: ${detail}`);
  }
}

export interface SvmChain {
  /** HTTP Solana JSON-RPC endpoint (no WebSocket subscriptions). */
  rpcUrl: string;
  network: typeof SOLANA_MAINNET_NETWORK;
  /** The USDC mint, at its mainnet address. */
  usdcMint: Address;
  /** Holds the mint authority; funded with SOL, pays for the token accounts `mint` creates. */
  mintAuthority: SvmKeypair;
  /** Fresh keypairs funded with SOL (no USDC, and no token account: use `mint`). */
  accounts: readonly SvmKeypair[];
  /**
   * Mints USDC base units to `owner`'s associated token account, creating it if needed (an
   * amount of 0n just creates it: a payee needs one before it can be paid). Resolves with the
   * transaction's signature once it landed.
   */
  mint(owner: string, amount: bigint): Promise<string>;
  /** USDC base units in `owner`'s associated token account (0n if it has none). */
  balanceOf(owner: string): Promise<bigint>;
  /** Lamports held by `address` (0n if it does not exist). */
  lamportsOf(address: string): Promise<bigint>;
  /** The associated USDC token account of `owner`. */
  tokenAccountOf(owner: string): Promise<Address>;
  /** Produces empty blocks: more than 150 expire every blockhash handed out before. */
  advanceBlocks(count: number): void;
  /** Closes the JSON-RPC server. Idempotent. */
  stop(): Promise<void>;
}

/**
 * Starts a Solana chain in this process (LiteSVM, with the SPL Token, Token-2022, Associated
 * Token Account and Memo programs) with USDC's mint at its mainnet address, and serves it as
 * Solana JSON-RPC over HTTP on 127.0.0.1. Every transaction lands in its own block at once,
 * so a signature is finalized as soon as sendTransaction returns.
 */
export async function startSvmChain(opts: StartSvmChainOptions = {}): Promise<SvmChain> {
  const ledger = new SvmLedger();
  const authority = generateKeypair();
  ledger.setAccount(
    SOLANA_USDC_MINT,
    new Account(
      ledger.svm.minimumBalanceForRentExemption(BigInt(MINT_SIZE)),
      encodeMint({
        mintAuthority: authority.address,
        supply: 0n,
        decimals: SOLANA_USDC_DECIMALS,
        isInitialized: true,
        freezeAuthority: null,
      }),
      base58.encode(TOKEN_PROGRAM) as Uint8Array,
      false,
      RENT_EXEMPT_EPOCH,
    ),
  );
  const lamports = opts.lamports ?? DEFAULT_LAMPORTS;
  ledger.airdrop(authority.address, lamports);
  const accounts = Array.from({ length: opts.accounts ?? DEFAULT_ACCOUNTS }, () => generateKeypair());
  for (const account of accounts) ledger.airdrop(account.address, lamports);

  const server = await serveJsonRpc(createRpcMethods(ledger), HOST, opts.port ?? 0);

  const tokenAccountOf = (owner: string): Promise<Address> => associatedTokenAddress(owner, SOLANA_USDC_MINT);

  return {
    rpcUrl: server.url,
    network: SOLANA_MAINNET_NETWORK,
    usdcMint: SOLANA_USDC_MINT,
    mintAuthority: authority,
    accounts,
    async mint(owner, amount) {
      const ata = await tokenAccountOf(owner);
      const bytes = buildSignedTransaction(
        [
          createAtaIdempotentInstruction(authority.address, ata, owner, SOLANA_USDC_MINT),
          mintToInstruction(SOLANA_USDC_MINT, ata, authority.address, amount),
        ],
        [authority],
        ledger.latestBlockhash().blockhash,
      );
      const outcome = ledger.send(decodeTransaction(bytes));
      const err = outcome.kind === "dropped" ? outcome.reason : outcome.landed.err;
      if (err) throw new SvmChainError("mint_failed", `minting ${amount} to ${owner}: ${err.message}`);
      return outcome.signature;
    },
    async balanceOf(owner) {
      const account = ledger.account(await tokenAccountOf(owner));
      return (account && decodeTokenAccount(account.data())?.amount) ?? 0n;
    },
    async lamportsOf(address) {
      return ledger.account(address)?.lamports() ?? 0n;
    },
    tokenAccountOf,
    advanceBlocks(count) {
      ledger.advance(count);
    },
    stop: () => server.close(),
  };
}
