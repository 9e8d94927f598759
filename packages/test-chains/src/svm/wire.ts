import { getBase58Codec } from "@solana/kit";
import { signEd25519 } from "./keys.js";

/**
 * Solana's transaction wire format (legacy and v0), read and written by hand: the RPC server
 * needs the parts (signatures, keys, blockhash, instructions) and the byte offsets (to swap a
 * blockhash), and a hand parser keeps this package free of @solana/kit's message types, whose
 * shape differs between the kit versions installed side by side here.
 */

const base58 = getBase58Codec();
export const SIGNATURE_BYTES = 64;
const KEY_BYTES = 32;

export interface WireInstruction {
  programIdIndex: number;
  accounts: number[];
  data: Uint8Array;
}

export interface WireLookup {
  accountKey: string;
  writableIndexes: number[];
  readonlyIndexes: number[];
}

export interface WireMessage {
  version: "legacy" | number;
  numRequiredSignatures: number;
  numReadonlySigned: number;
  numReadonlyUnsigned: number;
  /** Base58 addresses of the static keys, in message order. */
  accountKeys: string[];
  recentBlockhash: string;
  /** Byte offset of the blockhash inside the message. */
  blockhashOffset: number;
  instructions: WireInstruction[];
  lookups: WireLookup[];
}

export interface WireTransaction {
  /** The whole transaction as received. */
  bytes: Uint8Array;
  /** 64-byte signatures; an all-zero one is a missing signature. */
  signatures: Uint8Array[];
  messageBytes: Uint8Array;
  message: WireMessage;
  /** The first signature in base58: the transaction's id, also when that signature is missing. */
  signature: string;
}

export class WireFormatError extends Error {
  override readonly name = "WireFormatError";
}

class Reader {
  offset = 0;
  constructor(private readonly bytes: Uint8Array) {}

  u8(): number {
    const value = this.bytes[this.offset];
    if (value === undefined) throw new WireFormatError("unexpected end of data");
    this.offset += 1;
    return value;
  }

  shortU16(): number {
    let value = 0;
    for (let shift = 0; shift < 21; shift += 7) {
      const byte = this.u8();
      value |= (byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return value;
    }
    throw new WireFormatError("compact-u16 longer than 3 bytes");
  }

  take(length: number): Uint8Array {
    if (this.offset + length > this.bytes.length) throw new WireFormatError("unexpected end of data");
    const out = this.bytes.subarray(this.offset, this.offset + length);
    this.offset += length;
    return out;
  }

  done(): boolean {
    return this.offset === this.bytes.length;
  }
}

export function decodeTransaction(bytes: Uint8Array): WireTransaction {
  const reader = new Reader(bytes);
  const count = reader.shortU16();
  const signatures: Uint8Array[] = [];
  for (let i = 0; i < count; i += 1) signatures.push(reader.take(SIGNATURE_BYTES));
  const messageBytes = bytes.subarray(reader.offset);
  const message = decodeMessage(messageBytes);
  if (signatures.length !== message.numRequiredSignatures) {
    throw new WireFormatError(
      `${signatures.length} signatures for ${message.numRequiredSignatures} required signers`,
    );
  }
  const first = signatures[0];
  if (first === undefined) throw new WireFormatError("transaction has no signatures");
  return { bytes, signatures, messageBytes, message, signature: base58.decode(first) };
}

export function decodeMessage(bytes: Uint8Array): WireMessage {
  const reader = new Reader(bytes);
  let version: WireMessage["version"] = "legacy";
  const first = bytes[0];
  if (first !== undefined && (first & 0x80) !== 0) {
    version = reader.u8() & 0x7f;
    if (version !== 0) throw new WireFormatError(`unsupported transaction version ${version}`);
  }
  const numRequiredSignatures = reader.u8();
  const numReadonlySigned = reader.u8();
  const numReadonlyUnsigned = reader.u8();
  const keyCount = reader.shortU16();
  const accountKeys: string[] = [];
  for (let i = 0; i < keyCount; i += 1) accountKeys.push(base58.decode(reader.take(KEY_BYTES)));
  const blockhashOffset = reader.offset;
  const recentBlockhash = base58.decode(reader.take(KEY_BYTES));
  const instructions: WireInstruction[] = [];
  const ixCount = reader.shortU16();
  for (let i = 0; i < ixCount; i += 1) {
    const programIdIndex = reader.u8();
    const accounts = Array.from(reader.take(reader.shortU16()));
    const data = reader.take(reader.shortU16());
    instructions.push({ programIdIndex, accounts, data });
  }
  const lookups: WireLookup[] = [];
  if (version === 0) {
    const lookupCount = reader.shortU16();
    for (let i = 0; i < lookupCount; i += 1) {
      const accountKey = base58.decode(reader.take(KEY_BYTES));
      const writableIndexes = Array.from(reader.take(reader.shortU16()));
      const readonlyIndexes = Array.from(reader.take(reader.shortU16()));
      lookups.push({ accountKey, writableIndexes, readonlyIndexes });
    }
  }
  if (!reader.done()) throw new WireFormatError("trailing bytes after the message");
  if (numRequiredSignatures === 0 || numRequiredSignatures > accountKeys.length) {
    throw new WireFormatError("invalid message header");
  }
  return {
    version,
    numRequiredSignatures,
    numReadonlySigned,
    numReadonlyUnsigned,
    accountKeys,
    recentBlockhash,
    blockhashOffset,
    instructions,
    lookups,
  };
}

export function isSigner(message: WireMessage, index: number): boolean {
  return index < message.numRequiredSignatures;
}

export function isWritable(message: WireMessage, index: number): boolean {
  if (index < message.numRequiredSignatures) return index < message.numRequiredSignatures - message.numReadonlySigned;
  return index < message.accountKeys.length - message.numReadonlyUnsigned;
}

/** The same transaction with its message's blockhash replaced (signatures kept, now stale). */
export function withBlockhash(tx: WireTransaction, blockhash: string): Uint8Array {
  const out = tx.bytes.slice();
  out.set(base58.encode(blockhash), tx.bytes.length - tx.messageBytes.length + tx.message.blockhashOffset);
  return out;
}

function encodeShortU16(value: number): Uint8Array {
  const out: number[] = [];
  let rest = value;
  for (;;) {
    const byte = rest & 0x7f;
    rest >>= 7;
    if (rest === 0) {
      out.push(byte);
      return Uint8Array.from(out);
    }
    out.push(byte | 0x80);
  }
}

export interface AccountMeta {
  address: string;
  signer: boolean;
  writable: boolean;
}

export interface Instruction {
  programId: string;
  accounts: AccountMeta[];
  data: Uint8Array;
}

/** The parts of a keypair signing needs. */
export interface Signer {
  address: string;
  secretKey: Uint8Array;
}

/**
 * Compiles instructions into a legacy message and signs it with the given keypairs (the first
 * is the fee payer). Used for the chain's own set-up transactions (minting).
 */
export function buildSignedTransaction(instructions: Instruction[], signers: Signer[], blockhash: string): Uint8Array {
  const [feePayer] = signers;
  if (feePayer === undefined) throw new WireFormatError("a transaction needs a fee payer");
  const metas = new Map<string, { signer: boolean; writable: boolean; order: number }>();
  const note = (address: string, signer: boolean, writable: boolean): void => {
    const seen = metas.get(address);
    if (seen) {
      seen.signer ||= signer;
      seen.writable ||= writable;
    } else {
      metas.set(address, { signer, writable, order: metas.size });
    }
  };
  note(feePayer.address, true, true);
  for (const ix of instructions) {
    for (const account of ix.accounts) note(account.address, account.signer, account.writable);
    note(ix.programId, false, false);
  }
  // Message order: writable signers, read-only signers, writable others, read-only others;
  // the fee payer first.
  const rank = (m: { signer: boolean; writable: boolean }): number => (m.signer ? 0 : 2) + (m.writable ? 0 : 1);
  const keys = [...metas.entries()].sort(([, a], [, b]) => rank(a) - rank(b) || a.order - b.order);
  const index = new Map(keys.map(([address], i) => [address, i]));
  const signerCount = keys.filter(([, m]) => m.signer).length;
  for (const { address } of signers) {
    if (!metas.get(address)?.signer) throw new WireFormatError(`${address} signs but is not a signer`);
  }
  if (signerCount !== signers.length) throw new WireFormatError("every signer account needs a keypair");

  const parts: number[] = [
    signerCount,
    keys.filter(([, m]) => m.signer && !m.writable).length,
    keys.filter(([, m]) => !m.signer && !m.writable).length,
    ...encodeShortU16(keys.length),
  ];
  for (const [address] of keys) parts.push(...base58.encode(address));
  parts.push(...base58.encode(blockhash));
  parts.push(...encodeShortU16(instructions.length));
  for (const ix of instructions) {
    parts.push(index.get(ix.programId) ?? 0, ...encodeShortU16(ix.accounts.length));
    for (const account of ix.accounts) parts.push(index.get(account.address) ?? 0);
    parts.push(...encodeShortU16(ix.data.length), ...ix.data);
  }
  const message = Uint8Array.from(parts);

  const bySigner = new Map(signers.map((s) => [s.address, s]));
  const out: number[] = [...encodeShortU16(signerCount)];
  for (const [address] of keys.slice(0, signerCount)) {
    const keypair = bySigner.get(address);
    if (keypair === undefined) throw new WireFormatError(`no keypair for signer ${address}`);
    out.push(...signEd25519(message, keypair.secretKey));
  }
  out.push(...message);
  return Uint8Array.from(out);
}
