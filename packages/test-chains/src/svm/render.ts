import { getBase58Codec } from "@solana/kit";
import type { Account } from "litesvm/dist/internal.js";
import type { InnerInstructionRecord, LandedTransaction, SvmLedger } from "./ledger.js";
import { parseTokenAccountData, parseTokenInstruction } from "./spl.js";
import { isSigner, isWritable, type WireMessage } from "./wire.js";

/**
 * Accounts and transactions in the shapes and encodings Solana's JSON-RPC returns them
 * (UiAccount, EncodedTransactionWithStatusMeta). u64 values stay bigint: the server writes
 * them as bare JSON numbers, as a node does.
 */

const base58 = getBase58Codec();

export type AccountEncoding = "base58" | "base64" | "jsonParsed" | "binary";
export const ACCOUNT_ENCODINGS: readonly AccountEncoding[] = ["base58", "base64", "jsonParsed", "binary"];

export interface DataSlice {
  offset: number;
  length: number;
}

export function renderAccount(
  ledger: SvmLedger,
  account: Account,
  encoding: AccountEncoding,
  dataSlice?: DataSlice,
): Record<string, unknown> {
  const owner = base58.decode(account.owner());
  const full = account.data();
  const data = dataSlice ? full.subarray(dataSlice.offset, dataSlice.offset + dataSlice.length) : full;
  let rendered: unknown;
  const parsed = encoding === "jsonParsed" && !dataSlice ? parseTokenAccountData(owner, full, ledger.decimalsOf) : null;
  if (parsed) rendered = parsed;
  else if (encoding === "base58") rendered = [base58.decode(data), "base58"];
  else if (encoding === "binary") rendered = base58.decode(data);
  // jsonParsed without a parser falls back to base64, as on a node.
  else rendered = [Buffer.from(data).toString("base64"), "base64"];
  return {
    data: rendered,
    executable: account.executable(),
    lamports: account.lamports(),
    owner,
    rentEpoch: account.rentEpoch(),
    space: BigInt(full.length),
  };
}

export type TransactionEncoding = "json" | "jsonParsed" | "base64" | "base58";
export const TRANSACTION_ENCODINGS: readonly TransactionEncoding[] = ["json", "jsonParsed", "base64", "base58"];

/** An instruction as jsonParsed shows it: parsed for the token transfers, else partially decoded. */
function parsedInstruction(
  keys: string[],
  ix: { programIdIndex: number; accounts: number[]; data: Uint8Array },
  stackHeight: number | null,
): Record<string, unknown> {
  const programId = keys[ix.programIdIndex] ?? "";
  const accounts = ix.accounts.map((i) => keys[i] ?? "");
  const parsed = parseTokenInstruction(programId, accounts, ix.data);
  if (parsed) return { ...parsed, stackHeight };
  return { accounts, data: base58.decode(ix.data), programId, stackHeight };
}

export function renderInnerInstructions(
  ledger: SvmLedger,
  message: WireMessage,
  inner: InnerInstructionRecord[],
  parsed: boolean,
): unknown[] {
  const { keys } = ledger.accountKeys(message);
  return inner.map((group) => ({
    index: group.index,
    instructions: group.instructions.map((ix) =>
      parsed
        ? parsedInstruction(keys, ix, ix.stackHeight)
        : { accounts: ix.accounts, data: base58.decode(ix.data), programIdIndex: ix.programIdIndex, stackHeight: ix.stackHeight },
    ),
  }));
}

export function renderTransaction(
  ledger: SvmLedger,
  landed: LandedTransaction,
  encoding: TransactionEncoding,
  /** A node reports the version only to clients that said which versions they support. */
  withVersion: boolean,
): Record<string, unknown> {
  const { message } = landed.tx;
  const parsed = encoding === "jsonParsed";
  const { keys, writable, readonly } = ledger.accountKeys(message);
  let transaction: unknown;
  if (encoding === "base64") transaction = [Buffer.from(landed.tx.bytes).toString("base64"), "base64"];
  else if (encoding === "base58") transaction = [base58.decode(landed.tx.bytes), "base58"];
  else {
    const lookups = message.lookups.map((l) => ({
      accountKey: l.accountKey,
      readonlyIndexes: l.readonlyIndexes,
      writableIndexes: l.writableIndexes,
    }));
    const rendered: Record<string, unknown> = parsed
      ? {
          accountKeys: keys.map((pubkey, i) => ({
            pubkey,
            signer: i < message.accountKeys.length && isSigner(message, i),
            source: i < message.accountKeys.length ? "transaction" : "lookupTable",
            writable: i < message.accountKeys.length ? isWritable(message, i) : i < message.accountKeys.length + writable.length,
          })),
          instructions: message.instructions.map((ix) => parsedInstruction(keys, ix, null)),
          recentBlockhash: message.recentBlockhash,
        }
      : {
          accountKeys: message.accountKeys,
          header: {
            numReadonlySignedAccounts: message.numReadonlySigned,
            numReadonlyUnsignedAccounts: message.numReadonlyUnsigned,
            numRequiredSignatures: message.numRequiredSignatures,
          },
          instructions: message.instructions.map((ix) => ({
            accounts: ix.accounts,
            data: base58.decode(ix.data),
            programIdIndex: ix.programIdIndex,
            stackHeight: null,
          })),
          recentBlockhash: message.recentBlockhash,
        };
    if (message.version !== "legacy") rendered["addressTableLookups"] = lookups;
    transaction = { message: rendered, signatures: landed.tx.signatures.map((s) => base58.decode(s)) };
  }
  const err = landed.err?.json ?? null;
  const meta: Record<string, unknown> = {
    computeUnitsConsumed: landed.unitsConsumed,
    err,
    fee: landed.fee,
    innerInstructions: renderInnerInstructions(ledger, message, landed.innerInstructions, parsed),
    logMessages: landed.logs,
    postBalances: landed.postBalances,
    postTokenBalances: landed.postTokenBalances,
    preBalances: landed.preBalances,
    preTokenBalances: landed.preTokenBalances,
    rewards: [],
    status: err === null ? { Ok: null } : { Err: err },
  };
  if (!parsed) meta["loadedAddresses"] = { readonly, writable };
  if (landed.returnData) meta["returnData"] = renderReturnData(landed.returnData);
  const result: Record<string, unknown> = { blockTime: landed.blockTime, meta, slot: landed.slot, transaction };
  if (withVersion) result["version"] = message.version;
  return result;
}

export function renderReturnData(returnData: { programId: string; data: Uint8Array }): Record<string, unknown> {
  return { data: [Buffer.from(returnData.data).toString("base64"), "base64"], programId: returnData.programId };
}
