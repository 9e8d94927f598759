import {
  decodeErrorResult,
  encodeFunctionData,
  keccak256,
  pad,
  parseAbi,
  toBytes,
  type Address,
  type Hex,
} from "viem";
import type { Eip3009Authorization } from "../rails/eip3009.js";

/** Multicall3, at its canonical address on Base (and on the local chains). */
export const MULTICALL3: Address = "0xcA11bde05977b3631167028862bE2a173976CA11";

export const aggregate3Abi = parseAbi([
  "struct Call3 { address target; bool allowFailure; bytes callData; }",
  "struct Result { bool success; bytes returnData; }",
  "function aggregate3(Call3[] calls) payable returns (Result[] returnData)",
]);

/** FiatToken v2.2's `bytes signature` overload: EOA (65-byte) and ERC-1271 signatures alike. */
const transferAbi = parseAbi([
  "function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature)",
]);

export interface Call3 {
  target: Address;
  allowFailure: boolean;
  callData: Hex;
}

/** One transferWithAuthorization inside the batch; failure allowed, so one bad payment cannot sink the others. */
export function transferCall(token: Address, a: Eip3009Authorization): Call3 {
  return {
    target: token,
    allowFailure: true,
    callData: encodeFunctionData({
      abi: transferAbi,
      functionName: "transferWithAuthorization",
      args: [a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, a.signature],
    }),
  };
}

const ERROR_STRING = parseAbi(["error Error(string)"]);

/** The revert string of a failed call's return data, or a short description when it carries none. */
export function revertText(returnData: Hex): string {
  if (returnData === "0x") return "reverted without a reason";
  try {
    const decoded = decodeErrorResult({ abi: ERROR_STRING, data: returnData });
    return String(decoded.args[0]);
  } catch {
    return `reverted (${returnData.slice(0, 10)})`;
  }
}

const AUTHORIZATION_USED = keccak256(toBytes("AuthorizationUsed(address,bytes32)"));
const TRANSFER = keccak256(toBytes("Transfer(address,address,uint256)"));

export interface ReceiptLog {
  address: Address;
  topics: readonly Hex[];
  data: Hex;
}

/**
 * What a mined batch's logs say each payment did: the token logged AuthorizationUsed(from,
 * nonce) and Transfer(from, to, value). The chain decides each payment by its own call, not by
 * the batch's status. The logs are read once per receipt (hex compared in lower case, no
 * checksumming), and each payment is then a lookup.
 */
export function transfersIn(logs: readonly ReceiptLog[], token: Address): (a: Eip3009Authorization) => boolean {
  const tokenLc = token.toLowerCase();
  const used = new Set<string>();
  const moved = new Set<string>();
  for (const log of logs) {
    if (log.address.toLowerCase() !== tokenLc) continue;
    const [topic, t1, t2] = log.topics.map((t) => t.toLowerCase());
    if (topic === AUTHORIZATION_USED) used.add(`${t1}:${t2}`);
    else if (topic === TRANSFER) moved.add(`${t1}:${t2}:${BigInt(log.data)}`);
  }
  return (a) => {
    const from = pad(a.from.toLowerCase() as Hex);
    return used.has(`${from}:${a.nonce.toLowerCase()}`) && moved.has(`${from}:${pad(a.to.toLowerCase() as Hex)}:${a.value}`);
  };
}
