import { createHash, createPublicKey, verify } from "node:crypto";
import { getBase58Codec } from "@solana/kit";
import {
  Account,
  FailedTransactionMetadata,
  LiteSvm,
  type SimulatedTransactionInfo,
  type TransactionMetadata,
} from "litesvm/dist/internal.js";
import { generateKeypair } from "./keys.js";
import { SYSTEM_PROGRAM, decodeMint, decodeTokenAccount, isTokenProgram, uiTokenAmount, type UiTokenAmount } from "./spl.js";
import { fieldless, transactionError, type TransactionErrorInfo } from "./tx-error.js";
import { buildSignedTransaction, decodeTransaction, withBlockhash, type WireMessage, type WireTransaction } from "./wire.js";

/**
 * The chain: a LiteSVM instance plus what a node keeps around it and litesvm does not: slots
 * and block heights, a window of recent blockhashes (litesvm knows only one), the status of
 * every landed transaction and its metadata. Every transaction, including the chain's own
 * set-up ones, goes through `send`, so what the RPC reports is what happened.
 */

const base58 = getBase58Codec();

/** How many blocks a blockhash stays usable (MAX_PROCESSING_AGE). */
export const BLOCKHASH_VALIDITY = 150n;
const LAMPORTS_PER_SIGNATURE = 5000n;
/** What a node shows as rentEpoch of rent-exempt accounts (u64::MAX). */
export const RENT_EXEMPT_EPOCH = 2n ** 64n - 1n;
const FAUCET_LAMPORTS = 500_000_000n * 1_000_000_000n;
const SYSTEM_TRANSFER = 2;
/** Size of an address lookup table's header, before its addresses. */
const LOOKUP_TABLE_META_SIZE = 56;
const COMPUTE_BUDGET_PROGRAM = "ComputeBudget111111111111111111111111111111";
const DEFAULT_UNITS_PER_INSTRUCTION = 200_000n;
const MAX_COMPUTE_UNITS = 1_400_000n;
const MICRO_LAMPORTS_PER_LAMPORT = 1_000_000n;

export interface InnerInstructionRecord {
  index: number;
  instructions: { programIdIndex: number; accounts: number[]; data: Uint8Array; stackHeight: number }[];
}

export interface TokenBalance {
  accountIndex: number;
  mint: string;
  owner: string;
  programId: string;
  uiTokenAmount: UiTokenAmount;
}

export interface ExecutionRecord {
  err: TransactionErrorInfo | null;
  logs: string[];
  unitsConsumed: bigint;
  innerInstructions: InnerInstructionRecord[];
  returnData: { programId: string; data: Uint8Array } | null;
}

export interface LandedTransaction extends ExecutionRecord {
  signature: string;
  slot: bigint;
  blockTime: number;
  tx: WireTransaction;
  fee: bigint;
  preBalances: bigint[];
  postBalances: bigint[];
  preTokenBalances: TokenBalance[];
  postTokenBalances: TokenBalance[];
}

export interface SimulationRecord extends ExecutionRecord {
  /** Accounts as they would be after the transaction, by address (only those it loaded). */
  postAccounts: Map<string, Account>;
  replacementBlockhash: { blockhash: string; lastValidBlockHeight: bigint } | null;
}

export type SendOutcome =
  | { kind: "landed"; signature: string; landed: LandedTransaction }
  /** What a leader silently drops (bad signature, unknown blockhash, already processed...). */
  | { kind: "dropped"; signature: string; reason: TransactionErrorInfo };

export class SignatureVerificationError extends Error {
  override readonly name = "SignatureVerificationError";
}

export class SvmLedger {
  readonly svm: LiteSvm;
  private readonly landed = new Map<string, LandedTransaction>();
  /** Message hashes of landed transactions: a node's status cache refuses them again. */
  private readonly processedMessages = new Set<string>();
  /** Blockhash -> block height it was produced at. */
  private readonly blockhashes = new Map<string, bigint>();
  private latest: string;

  /** Funds airdrops, through ordinary transfers so they show up like any transaction. */
  private readonly faucet = generateKeypair();

  constructor() {
    this.svm = new LiteSvm();
    const systemProgram = base58.encode(SYSTEM_PROGRAM) as Uint8Array;
    this.setAccount(
      this.faucet.address,
      new Account(FAUCET_LAMPORTS, new Uint8Array(0), systemProgram, false, RENT_EXEMPT_EPOCH),
    );
    // Blockhash age is checked here, against a window of recent blockhashes like a node's;
    // litesvm alone accepts only its single latest one.
    this.svm.setBlockhashCheck(false);
    this.latest = this.svm.latestBlockhash();
    this.blockhashes.set(this.latest, this.slot);
    this.setClock(this.slot);
  }

  get slot(): bigint {
    return this.svm.getClock().slot;
  }

  /** One block per slot here, so the height is the slot. */
  get blockHeight(): bigint {
    return this.slot;
  }

  latestBlockhash(): { blockhash: string; lastValidBlockHeight: bigint } {
    const height = this.blockhashes.get(this.latest) ?? this.blockHeight;
    return { blockhash: this.latest, lastValidBlockHeight: height + BLOCKHASH_VALIDITY };
  }

  isBlockhashValid(blockhash: string): boolean {
    const height = this.blockhashes.get(blockhash);
    return height !== undefined && this.blockHeight <= height + BLOCKHASH_VALIDITY;
  }

  /** Produces `count` empty blocks, each with a new blockhash. */
  advance(count = 1): void {
    for (let i = 0; i < count; i += 1) this.nextBlock();
  }

  account(address: string): Account | null {
    return this.svm.getAccount(base58.encode(address) as Uint8Array);
  }

  setAccount(address: string, account: Account): void {
    this.svm.setAccount(base58.encode(address) as Uint8Array, account);
  }

  decimalsOf = (mint: string): number | null => {
    const account = this.account(mint);
    if (!account || !isTokenProgram(base58.decode(account.owner()))) return null;
    return decodeMint(account.data())?.decimals ?? null;
  };

  status(signature: string): LandedTransaction | undefined {
    return this.landed.get(signature);
  }

  get transactionCount(): number {
    return this.landed.size;
  }

  /**
   * Every key the message uses, in the runtime's order: static keys, then the writable and
   * then the read-only keys loaded from address lookup tables (unresolvable ones are skipped).
   */
  accountKeys(message: WireMessage): { keys: string[]; writable: string[]; readonly: string[] } {
    const writable: string[] = [];
    const readonly: string[] = [];
    for (const lookup of message.lookups) {
      const table = this.account(lookup.accountKey)?.data();
      const at = (i: number): string | undefined => {
        const start = LOOKUP_TABLE_META_SIZE + i * 32;
        return table && table.length >= start + 32 ? base58.decode(table.subarray(start, start + 32)) : undefined;
      };
      for (const i of lookup.writableIndexes) writable.push(at(i) ?? "");
      for (const i of lookup.readonlyIndexes) readonly.push(at(i) ?? "");
    }
    return { keys: [...message.accountKeys, ...writable, ...readonly], writable, readonly };
  }

  /** Checks every required signature, as a node's sigverify stage does. */
  signaturesValid(tx: WireTransaction): boolean {
    return tx.signatures.every((signature, i) => {
      const signer = tx.message.accountKeys[i];
      if (signer === undefined) return false;
      try {
        const key = createPublicKey({
          format: "jwk",
          key: { kty: "OKP", crv: "Ed25519", x: Buffer.from(base58.encode(signer)).toString("base64url") },
        });
        return verify(null, tx.messageBytes, key, signature);
      } catch {
        return false; // not a usable public key
      }
    });
  }

  /** Fee of a message as the runtime charges it: per signature plus the priority fee. */
  feeFor(message: WireMessage): bigint {
    let price = 0n;
    let limit: bigint | undefined;
    let otherInstructions = 0n;
    for (const ix of message.instructions) {
      if (message.accountKeys[ix.programIdIndex] !== COMPUTE_BUDGET_PROGRAM) {
        otherInstructions += 1n;
        continue;
      }
      const view = new DataView(ix.data.buffer, ix.data.byteOffset, ix.data.byteLength);
      if (ix.data[0] === 2 && ix.data.length >= 5) limit = BigInt(view.getUint32(1, true));
      if (ix.data[0] === 3 && ix.data.length >= 9) price = view.getBigUint64(1, true);
    }
    const units = limit ?? min(otherInstructions * DEFAULT_UNITS_PER_INSTRUCTION, MAX_COMPUTE_UNITS);
    const priority = (price * units + MICRO_LAMPORTS_PER_LAMPORT - 1n) / MICRO_LAMPORTS_PER_LAMPORT;
    return BigInt(message.numRequiredSignatures) * LAMPORTS_PER_SIGNATURE + priority;
  }

  /**
   * Runs a transaction without committing it. `sigVerify` false skips signature checks (the
   * fee payer's slot of an x402 payload is still empty); a failed check with `sigVerify` true
   * throws SignatureVerificationError, as a node answers -32003 then.
   */
  simulate(
    tx: WireTransaction,
    opts: { sigVerify: boolean; replaceRecentBlockhash: boolean },
  ): SimulationRecord {
    if (opts.sigVerify && !this.signaturesValid(tx)) {
      throw new SignatureVerificationError("Transaction signature verification failure");
    }
    let wire = tx.bytes;
    let replacementBlockhash: SimulationRecord["replacementBlockhash"] = null;
    if (opts.replaceRecentBlockhash) {
      replacementBlockhash = this.latestBlockhash();
      wire = withBlockhash(tx, replacementBlockhash.blockhash);
      tx = decodeTransaction(wire);
    }
    const rejected = this.precheck(tx);
    if (rejected) return { ...emptyExecution(rejected), postAccounts: new Map(), replacementBlockhash };

    const sigverify = this.svm.getSigverify();
    this.svm.setSigverify(opts.sigVerify);
    let result: SimulatedTransactionInfo | FailedTransactionMetadata;
    try {
      result =
        tx.message.version === "legacy"
          ? this.svm.simulateLegacyTransaction(wire)
          : this.svm.simulateVersionedTransaction(wire);
    } finally {
      this.svm.setSigverify(sigverify);
    }
    if (result instanceof FailedTransactionMetadata) {
      const err = transactionError(result);
      if (opts.sigVerify && err.json === "SignatureFailure") throw new SignatureVerificationError(err.message);
      return { ...execution(result.meta(), err), postAccounts: new Map(), replacementBlockhash };
    }
    const postAccounts = new Map(
      result.postAccounts().map((entry) => [base58.decode(entry.address), entry.account()] as const),
    );
    return { ...execution(result.meta(), null), postAccounts, replacementBlockhash };
  }

  /** Executes and commits a transaction, as a leader would: it lands (maybe failed) or is dropped. */
  send(tx: WireTransaction): SendOutcome {
    const rejected = this.precheck(tx);
    if (rejected) return { kind: "dropped", signature: tx.signature, reason: rejected };

    const keys = tx.message.accountKeys;
    const preAccounts = keys.map((key) => this.account(key));
    const wire = tx.bytes;
    const result =
      tx.message.version === "legacy" ? this.svm.sendLegacyTransaction(wire) : this.svm.sendVersionedTransaction(wire);
    const failed = result instanceof FailedTransactionMetadata ? transactionError(result) : null;
    // A transaction that could not pay its fee never reaches a block; litesvm records (and
    // charges) exactly those that would.
    const recorded = this.svm.getTransaction(base58.encode(tx.signature) as Uint8Array) !== null;
    if (failed && (failed.json === "AlreadyProcessed" || !recorded)) {
      return { kind: "dropped", signature: tx.signature, reason: failed };
    }
    const meta = result instanceof FailedTransactionMetadata ? result.meta() : result;
    const postAccounts = keys.map((key) => this.account(key));
    const landed: LandedTransaction = {
      ...execution(meta, failed),
      signature: tx.signature,
      slot: this.slot,
      blockTime: Math.floor(Date.now() / 1000),
      tx,
      fee: this.feeFor(tx.message),
      preBalances: preAccounts.map((a) => a?.lamports() ?? 0n),
      postBalances: postAccounts.map((a) => a?.lamports() ?? 0n),
      preTokenBalances: this.tokenBalances(preAccounts),
      postTokenBalances: this.tokenBalances(postAccounts),
    };
    this.landed.set(tx.signature, landed);
    this.processedMessages.add(messageKey(tx));
    this.nextBlock();
    return { kind: "landed", signature: tx.signature, landed };
  }

  /** Gives lamports to an address: a System transfer from the faucet, in its own block. */
  airdrop(address: string, lamports: bigint): string {
    const data = new Uint8Array(12);
    const view = new DataView(data.buffer);
    view.setUint32(0, SYSTEM_TRANSFER, true);
    view.setBigUint64(4, lamports, true);
    const transfer = {
      programId: SYSTEM_PROGRAM,
      accounts: [
        { address: this.faucet.address, signer: true, writable: true },
        { address, signer: false, writable: true },
      ],
      data,
    };
    const bytes = buildSignedTransaction([transfer], [this.faucet], this.latest);
    const outcome = this.send(decodeTransaction(bytes));
    const err = outcome.kind === "dropped" ? outcome.reason : outcome.landed.err;
    if (err) throw new Error(`airdrop of ${lamports} lamports to ${address} failed: ${err.message}`);
    return outcome.signature;
  }

  /** The checks a node makes before executing: blockhash age, then its status cache. */
  private precheck(tx: WireTransaction): TransactionErrorInfo | null {
    if (!this.isBlockhashValid(tx.message.recentBlockhash)) return fieldless("BlockhashNotFound");
    // Keyed by message hash, as agave's status cache is: the same payment with or without the
    // fee payer's signature is the same transaction.
    if (this.processedMessages.has(messageKey(tx))) return fieldless("AlreadyProcessed");
    return null;
  }

  private tokenBalances(accounts: (Account | null)[]): TokenBalance[] {
    const out: TokenBalance[] = [];
    accounts.forEach((account, accountIndex) => {
      if (!account) return;
      const programId = base58.decode(account.owner());
      if (!isTokenProgram(programId)) return;
      const state = decodeTokenAccount(account.data());
      const decimals = state ? this.decimalsOf(state.mint) : null;
      if (!state || decimals === null || state.state === "uninitialized") return;
      const { mint, owner, amount } = state;
      out.push({ accountIndex, mint, owner, programId, uiTokenAmount: uiTokenAmount(amount, decimals) });
    });
    return out;
  }

  private nextBlock(): void {
    this.setClock(this.slot + 1n);
    this.svm.expireBlockhash();
    this.latest = this.svm.latestBlockhash();
    this.blockhashes.set(this.latest, this.blockHeight);
    for (const [hash, height] of this.blockhashes) {
      if (height + BLOCKHASH_VALIDITY < this.blockHeight) this.blockhashes.delete(hash);
    }
  }

  private setClock(slot: bigint): void {
    const clock = this.svm.getClock();
    clock.slot = slot;
    clock.unixTimestamp = BigInt(Math.floor(Date.now() / 1000));
    this.svm.setClock(clock);
  }
}

function min(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}

function messageKey(tx: WireTransaction): string {
  return createHash("sha256").update(tx.messageBytes).digest("hex");
}

function emptyExecution(err: TransactionErrorInfo): ExecutionRecord {
  return { err, logs: [], unitsConsumed: 0n, innerInstructions: [], returnData: null };
}

function execution(meta: TransactionMetadata, err: TransactionErrorInfo | null): ExecutionRecord {
  const innerInstructions: InnerInstructionRecord[] = [];
  meta.innerInstructions().forEach((group, index) => {
    if (group.length === 0) return;
    innerInstructions.push({
      index,
      instructions: group.map((inner) => {
        const ix = inner.instruction();
        return {
          programIdIndex: ix.programIdIndex(),
          accounts: Array.from(ix.accounts()),
          data: ix.data(),
          stackHeight: inner.stackHeight(),
        };
      }),
    });
  });
  const returned = meta.returnData();
  const returnData =
    returned.data().length > 0 ? { programId: base58.decode(returned.programId()), data: returned.data() } : null;
  return { err, logs: meta.logs(), unitsConsumed: meta.computeUnitsConsumed(), innerInstructions, returnData };
}
