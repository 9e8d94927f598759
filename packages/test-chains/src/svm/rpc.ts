import { getBase58Codec } from "@solana/kit";
import { SignatureVerificationError, type SimulationRecord, type SvmLedger } from "./ledger.js";
import {
  ACCOUNT_ENCODINGS,
  TRANSACTION_ENCODINGS,
  renderAccount,
  renderInnerInstructions,
  renderReturnData,
  renderTransaction,
  type AccountEncoding,
  type DataSlice,
  type TransactionEncoding,
} from "./render.js";
import { decodeTokenAccount, isTokenProgram, uiTokenAmount } from "./spl.js";
import { decodeMessage, decodeTransaction, WireFormatError, type WireTransaction } from "./wire.js";

/**
 * The Solana JSON-RPC methods this chain answers, with a node's result shapes and error
 * codes and messages (agave's rpc.rs / rpc_custom_error.rs). Everything is synchronous over
 * the ledger, so each request sees and leaves a consistent state.
 */

const base58 = getBase58Codec();

/** Mainnet's genesis hash: the network id solana:5eykt4Us... is its first 32 characters. */
export const MAINNET_GENESIS_HASH = "5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d";
/** The agave crates litesvm 1.4.1 is built from. */
const SOLANA_CORE_VERSION = "4.2.1";
/** PACKET_DATA_SIZE: the largest transaction a node accepts. */
const MAX_TRANSACTION_BYTES = 1232;
const MAX_SIGNATURE_STATUSES = 256;
const MAX_MULTIPLE_ACCOUNTS = 100;

export const RpcErrorCode = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  sendTransactionPreflightFailure: -32002,
  transactionSignatureVerificationFailure: -32003,
  unsupportedTransactionVersion: -32015,
} as const;

export class RpcError extends Error {
  override readonly name = "RpcError";
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

export type RpcMethod = (params: readonly unknown[]) => unknown;

function invalidParams(detail: string): RpcError {
  return new RpcError(RpcErrorCode.invalidParams, detail);
}

function config(params: readonly unknown[], index: number): Record<string, unknown> {
  const value = params[index];
  if (value === undefined || value === null) return {};
  if (typeof value !== "object" || Array.isArray(value)) throw invalidParams("Invalid params: expected a config object");
  return value as Record<string, unknown>;
}

function addressParam(value: unknown): string {
  if (typeof value !== "string") throw invalidParams("Invalid params: expected a base58 address");
  let bytes: { length: number };
  try {
    bytes = base58.encode(value);
  } catch {
    throw invalidParams("Invalid param: Invalid");
  }
  if (bytes.length !== 32) throw invalidParams("Invalid param: WrongSize");
  return value;
}

function signatureParam(value: unknown): string {
  if (typeof value !== "string") throw invalidParams("Invalid params: expected a base58 signature");
  let length: number;
  try {
    length = base58.encode(value).length;
  } catch {
    throw invalidParams("Invalid param: Invalid");
  }
  if (length !== 64) throw invalidParams("Invalid param: WrongSize");
  return value;
}

function enumParam<T extends string>(value: unknown, allowed: readonly T[], fallback: T, what: string): T {
  if (value === undefined || value === null) return fallback;
  if (typeof value === "string" && (allowed as readonly string[]).includes(value)) return value as T;
  throw invalidParams(`Invalid params: unsupported ${what} ${JSON.stringify(value)}`);
}

function u64Param(value: unknown, what: string): bigint {
  if ((typeof value === "number" && Number.isSafeInteger(value) && value >= 0) || typeof value === "bigint") {
    return BigInt(value);
  }
  throw invalidParams(`Invalid params: ${what} must be an unsigned integer`);
}

function dataSliceParam(value: unknown): DataSlice | undefined {
  if (value === undefined || value === null) return undefined;
  const slice = value as { offset?: unknown; length?: unknown };
  if (typeof slice.offset !== "number" || typeof slice.length !== "number" || slice.offset < 0 || slice.length < 0) {
    throw invalidParams("Invalid params: dataSlice needs a non-negative offset and length");
  }
  return { offset: slice.offset, length: slice.length };
}

function decodeWireParam(value: unknown, encoding: "base58" | "base64"): Uint8Array {
  if (typeof value !== "string") throw invalidParams("Invalid params: expected an encoded transaction");
  const maxEncoded = encoding === "base64" ? 1644 : 1683;
  if (value.length > maxEncoded) {
    throw invalidParams(
      `${encoding} encoded solana_transaction::versioned::VersionedTransaction too large: ${value.length} bytes (max: encoded/raw ${maxEncoded}/${MAX_TRANSACTION_BYTES})`,
    );
  }
  let bytes: Uint8Array;
  if (encoding === "base64") {
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(value)) throw invalidParams("invalid base64 encoding: InvalidByte");
    bytes = new Uint8Array(Buffer.from(value, "base64"));
  } else {
    try {
      bytes = new Uint8Array(base58.encode(value));
    } catch {
      throw invalidParams("invalid base58 encoding: InvalidCharacter");
    }
  }
  if (bytes.length > MAX_TRANSACTION_BYTES) {
    throw invalidParams(
      `decoded solana_transaction::versioned::VersionedTransaction too large: ${bytes.length} bytes (max: ${MAX_TRANSACTION_BYTES} bytes)`,
    );
  }
  return bytes;
}

function transactionParam(params: readonly unknown[], cfg: Record<string, unknown>): WireTransaction {
  const encoding = enumParam(cfg["encoding"], ["base58", "base64"] as const, "base58", "encoding");
  const bytes = decodeWireParam(params[0], encoding);
  try {
    return decodeTransaction(bytes);
  } catch (error) {
    if (error instanceof WireFormatError) {
      throw invalidParams(`failed to deserialize solana_transaction::versioned::VersionedTransaction: ${error.message}`);
    }
    throw error;
  }
}

export function createRpcMethods(ledger: SvmLedger): Record<string, RpcMethod> {
  const context = (): { apiVersion: string; slot: bigint } => ({ apiVersion: SOLANA_CORE_VERSION, slot: ledger.slot });
  const withContext = (value: unknown): { context: ReturnType<typeof context>; value: unknown } => ({ context: context(), value });

  const accountValue = (address: string, cfg: Record<string, unknown>): unknown => {
    const encoding = enumParam<AccountEncoding>(cfg["encoding"], ACCOUNT_ENCODINGS, "binary", "encoding");
    const account = ledger.account(address);
    return account ? renderAccount(ledger, account, encoding, dataSliceParam(cfg["dataSlice"])) : null;
  };

  const simulationValue = (
    sim: SimulationRecord,
    tx: WireTransaction,
    cfg: Record<string, unknown>,
  ): Record<string, unknown> => {
    const accountsCfg = cfg["accounts"] as { addresses?: unknown; encoding?: unknown } | undefined | null;
    let accounts: unknown = null;
    if (accountsCfg) {
      if (!Array.isArray(accountsCfg.addresses)) throw invalidParams("Invalid params: accounts.addresses must be an array");
      const encoding = enumParam<AccountEncoding>(accountsCfg.encoding, ["base64", "jsonParsed"], "base64", "encoding");
      accounts = accountsCfg.addresses.map((value: unknown) => {
        const address = addressParam(value);
        // Only accounts the transaction loaded have a post-simulation state; others are null.
        const account = sim.postAccounts.get(address);
        return account ? renderAccount(ledger, account, encoding) : null;
      });
    }
    return {
      accounts,
      err: sim.err?.json ?? null,
      innerInstructions:
        cfg["innerInstructions"] === true ? renderInnerInstructions(ledger, tx.message, sim.innerInstructions, true) : null,
      logs: sim.logs,
      replacementBlockhash: sim.replacementBlockhash,
      returnData: sim.returnData ? renderReturnData(sim.returnData) : null,
      unitsConsumed: sim.unitsConsumed,
    };
  };

  const simulate = (tx: WireTransaction, opts: { sigVerify: boolean; replaceRecentBlockhash: boolean }): SimulationRecord => {
    try {
      return ledger.simulate(tx, opts);
    } catch (error) {
      if (error instanceof SignatureVerificationError) {
        throw new RpcError(RpcErrorCode.transactionSignatureVerificationFailure, "Transaction signature verification failure");
      }
      throw error;
    }
  };

  return {
    getHealth: () => "ok",
    getVersion: () => ({ "feature-set": 0, "solana-core": SOLANA_CORE_VERSION }),
    getGenesisHash: () => MAINNET_GENESIS_HASH,
    getSlot: () => ledger.slot,
    getBlockHeight: () => ledger.blockHeight,
    getTransactionCount: () => BigInt(ledger.transactionCount),
    getEpochInfo: () => {
      const slotsInEpoch = ledger.svm.getEpochSchedule().slotsPerEpoch;
      return {
        absoluteSlot: ledger.slot,
        blockHeight: ledger.blockHeight,
        epoch: ledger.slot / slotsInEpoch,
        slotIndex: ledger.slot % slotsInEpoch,
        slotsInEpoch,
        transactionCount: BigInt(ledger.transactionCount),
      };
    },
    getLatestBlockhash: () => withContext(ledger.latestBlockhash()),
    isBlockhashValid: (params) => {
      if (typeof params[0] !== "string") throw invalidParams("Invalid params: expected a blockhash");
      return withContext(ledger.isBlockhashValid(params[0]));
    },
    getMinimumBalanceForRentExemption: (params) =>
      ledger.svm.minimumBalanceForRentExemption(u64Param(params[0] ?? 0, "data length")),
    getFeeForMessage: (params) => {
      if (typeof params[0] !== "string") throw invalidParams("Invalid params: expected a base64 message");
      let message;
      try {
        message = decodeMessage(new Uint8Array(Buffer.from(params[0], "base64")));
      } catch (error) {
        if (error instanceof WireFormatError) throw invalidParams(`invalid message: ${error.message}`);
        throw error;
      }
      return withContext(ledger.isBlockhashValid(message.recentBlockhash) ? ledger.feeFor(message) : null);
    },
    getBalance: (params) => withContext(ledger.account(addressParam(params[0]))?.lamports() ?? 0n),
    getAccountInfo: (params) => withContext(accountValue(addressParam(params[0]), config(params, 1))),
    getMultipleAccounts: (params) => {
      const addresses = params[0];
      if (!Array.isArray(addresses)) throw invalidParams("Invalid params: expected an array of addresses");
      if (addresses.length > MAX_MULTIPLE_ACCOUNTS) {
        throw invalidParams(`Too many inputs provided; max ${MAX_MULTIPLE_ACCOUNTS}`);
      }
      const cfg = config(params, 1);
      return withContext(addresses.map((a: unknown) => accountValue(addressParam(a), cfg)));
    },
    getTokenAccountBalance: (params) => {
      const account = ledger.account(addressParam(params[0]));
      if (!account) throw invalidParams("Invalid param: could not find account");
      const state = isTokenProgram(base58.decode(account.owner())) ? decodeTokenAccount(account.data()) : null;
      const decimals = state ? ledger.decimalsOf(state.mint) : null;
      if (!state || decimals === null) throw invalidParams("Invalid param: not a Token account");
      return withContext(uiTokenAmount(state.amount, decimals));
    },
    simulateTransaction: (params) => {
      const cfg = config(params, 1);
      const sigVerify = cfg["sigVerify"] === true;
      const replaceRecentBlockhash = cfg["replaceRecentBlockhash"] === true;
      if (sigVerify && replaceRecentBlockhash) {
        throw invalidParams("sigVerify may not be used with replaceRecentBlockhash");
      }
      const tx = transactionParam(params, cfg);
      return withContext(simulationValue(simulate(tx, { sigVerify, replaceRecentBlockhash }), tx, cfg));
    },
    sendTransaction: (params) => {
      const cfg = config(params, 1);
      const tx = transactionParam(params, cfg);
      if (cfg["skipPreflight"] !== true) {
        const sim = simulate(tx, { sigVerify: true, replaceRecentBlockhash: false });
        if (sim.err) {
          throw new RpcError(
            RpcErrorCode.sendTransactionPreflightFailure,
            `Transaction simulation failed: ${sim.err.message}`,
            simulationValue(sim, tx, {}),
          );
        }
      }
      // Without preflight a node forwards the transaction and answers with its signature even
      // if the leader then drops it (bad signature, expired blockhash, already processed).
      return ledger.send(tx).signature;
    },
    getSignatureStatuses: (params) => {
      const signatures = params[0];
      if (!Array.isArray(signatures)) throw invalidParams("Invalid params: expected an array of signatures");
      if (signatures.length > MAX_SIGNATURE_STATUSES) {
        throw invalidParams(`Too many inputs provided; max ${MAX_SIGNATURE_STATUSES}`);
      }
      return withContext(
        signatures.map((value: unknown) => {
          const landed = ledger.status(signatureParam(value));
          if (!landed) return null;
          const err = landed.err?.json ?? null;
          return {
            confirmationStatus: "finalized",
            confirmations: null,
            err,
            slot: landed.slot,
            status: err === null ? { Ok: null } : { Err: err },
          };
        }),
      );
    },
    getTransaction: (params) => {
      const landed = ledger.status(signatureParam(params[0]));
      const cfg = typeof params[1] === "string" ? { encoding: params[1] } : config(params, 1);
      const encoding = enumParam<TransactionEncoding>(cfg["encoding"], TRANSACTION_ENCODINGS, "json", "encoding");
      if (!landed) return null;
      const version = landed.tx.message.version;
      const maxVersion = cfg["maxSupportedTransactionVersion"];
      if (version !== "legacy" && (typeof maxVersion !== "number" || maxVersion < version)) {
        throw new RpcError(
          RpcErrorCode.unsupportedTransactionVersion,
          `Transaction version (${version}) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": ${version}`,
        );
      }
      return renderTransaction(ledger, landed, encoding, typeof maxVersion === "number");
    },
    requestAirdrop: (params) => ledger.airdrop(addressParam(params[0]), u64Param(params[1], "lamports")),
  };
}
