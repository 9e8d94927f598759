import algosdk, { type SignedTransaction } from "algosdk";
import { reject, type StandInRejection } from "./stand-in-rejection.js";

/**
 * How the algod stand-in reads what clients POST: a body of concatenated msgpack signed
 * transactions (algod's /v2/transactions wire), each decoded with algosdk and required to be in
 * canonical encoding, as algod's decoder requires.
 */

export interface StandInTxn {
  stxn: SignedTransaction;
  /** The signed transaction's bytes as received (canonical). */
  bytes: Uint8Array;
  txId: string;
}

/** Decodes a POST /v2/transactions body into its signed transactions, in order. */
export function decodeSignedGroup(body: Uint8Array): StandInTxn[] | StandInRejection {
  const chunks = splitMsgpackObjects(body);
  if (typeof chunks === "string") return reject("decode_failed", "verify", `msgpack decode error: ${chunks}`);
  const txns: StandInTxn[] = [];
  for (const [i, bytes] of chunks.entries()) {
    const txn = decodeSignedTxn(bytes, i);
    if ("reason" in txn) return txn;
    txns.push(txn);
  }
  return txns;
}

/** Wraps signed transactions that arrived already decoded (simulate requests). */
export function fromSignedTransactions(stxns: readonly SignedTransaction[]): StandInTxn[] | StandInRejection {
  const txns: StandInTxn[] = [];
  for (const [i, stxn] of stxns.entries()) {
    const txn = decodeSignedTxn(algosdk.encodeMsgpack(stxn), i);
    if ("reason" in txn) return txn;
    txns.push(txn);
  }
  return txns;
}

function decodeSignedTxn(bytes: Uint8Array, index: number): StandInTxn | StandInRejection {
  let stxn: SignedTransaction;
  try {
    stxn = algosdk.decodeSignedTransaction(bytes);
  } catch (error) {
    const detail = error instanceof Error ? error.message : "unknown error";
    return reject("decode_failed", "verify", `msgpack decode error in transaction ${index}: ${detail}`, index);
  }
  // Signatures cover the canonical encoding; a non-canonical one may hide fields we would drop.
  if (Buffer.compare(Buffer.from(algosdk.encodeMsgpack(stxn)), Buffer.from(bytes)) !== 0) {
    return reject("non_canonical_encoding", "verify", `transaction ${index} is not in canonical msgpack encoding`, index);
  }
  return { stxn, bytes, txId: stxn.txn.txID() };
}

/**
 * Splits a buffer of concatenated msgpack values at value boundaries, without decoding them
 * (algosdk only decodes one value per buffer). Returns an error text when the buffer is not a
 * whole number of well-formed values.
 */
export function splitMsgpackObjects(buf: Uint8Array): Uint8Array[] | string {
  if (buf.length === 0) return "empty body";
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const out: Uint8Array[] = [];
  let pos = 0;
  while (pos < buf.length) {
    const start = pos;
    let pending = 1; // values still to skip to finish the current top-level value
    while (pending > 0) {
      if (pos >= buf.length) return `truncated value at byte ${start}`;
      const head = buf[pos] as number;
      const step = headSize(head, view, pos);
      if (step === undefined) return `invalid msgpack byte 0x${head.toString(16)} at ${pos}`;
      pos += step.bytes;
      pending += step.children - 1;
    }
    if (pos > buf.length) return `truncated value at byte ${start}`;
    out.push(buf.subarray(start, pos));
  }
  return out;
}

/** Bytes a msgpack value's header and payload take (not counting children) and its child count. */
function headSize(head: number, view: DataView, pos: number): { bytes: number; children: number } | undefined {
  const u8 = (at: number) => (at < view.byteLength ? view.getUint8(at) : Number.NaN);
  const u16 = (at: number) => (at + 2 <= view.byteLength ? view.getUint16(at) : Number.NaN);
  const u32 = (at: number) => (at + 4 <= view.byteLength ? view.getUint32(at) : Number.NaN);
  const ok = (bytes: number, children = 0) => (Number.isNaN(bytes) || Number.isNaN(children) ? undefined : { bytes, children });
  if (head <= 0x7f || head >= 0xe0) return ok(1);
  if (head <= 0x8f) return ok(1, 2 * (head & 0x0f));
  if (head <= 0x9f) return ok(1, head & 0x0f);
  if (head <= 0xbf) return ok(1 + (head & 0x1f));
  switch (head) {
    case 0xc0: case 0xc2: case 0xc3: return ok(1);
    case 0xc4: case 0xd9: return ok(2 + u8(pos + 1));
    case 0xc5: case 0xda: return ok(3 + u16(pos + 1));
    case 0xc6: case 0xdb: return ok(5 + u32(pos + 1));
    case 0xc7: return ok(3 + u8(pos + 1));
    case 0xc8: return ok(4 + u16(pos + 1));
    case 0xc9: return ok(6 + u32(pos + 1));
    case 0xca: case 0xce: case 0xd2: return ok(5);
    case 0xcb: case 0xcf: case 0xd3: return ok(9);
    case 0xcc: case 0xd0: return ok(2);
    case 0xcd: case 0xd1: return ok(3);
    case 0xd4: return ok(3);
    case 0xd5: return ok(4);
    case 0xd6: return ok(6);
    case 0xd7: return ok(10);
    case 0xd8: return ok(18);
    case 0xdc: return ok(3, u16(pos + 1));
    case 0xdd: return ok(5, u32(pos + 1));
    case 0xde: return ok(3, 2 * u16(pos + 1));
    case 0xdf: return ok(5, 2 * u32(pos + 1));
    default: return undefined; // 0xc1 is never used
  }
}
