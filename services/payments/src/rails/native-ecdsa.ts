import { createRequire } from "node:module";
import type { FacilitatorEvmSigner } from "@x402/evm";
import { getAddress, hexToBytes, keccak256, type Address, type Hex } from "viem";

export interface NativeSecp256k1 {
  ecdsaRecover(sig: Uint8Array, recid: number, msg32: Uint8Array, compressed: false): Uint8Array;
}

/** libsecp256k1 through the `secp256k1` package's native addon; null when the addon cannot load. */
export function loadNativeSecp256k1(): NativeSecp256k1 | null {
  try {
    // The package's own entry silently falls back to pure-JS elliptic; the bindings entry does not.
    return createRequire(import.meta.url)("secp256k1/bindings") as NativeSecp256k1;
  } catch {
    return null;
  }
}

const ERC1271_MAGIC = "0x1626ba7e";
const ERC1271_FAIL = "0xffffffff";
/** Stands for "an account without code" where the facilitator asks for code (see below). */
const NO_CODE_MARK = "0xfe";
/** How long a payer's code, as just read for the facilitator, is trusted (one verification). */
const CODE_MEMORY_MS = 2_000;
const CODE_MEMORY_ENTRIES = 10_000;

/** Recovers the signer of a 32-byte digest from a 65-byte (r, s, v) signature with libsecp256k1. */
export function recoverNative(native: NativeSecp256k1, digest: Hex, signature: Hex): Address | null {
  const sig = hexToBytes(signature);
  if (sig.length !== 65) return null;
  const v = sig[64] as number;
  const recid = v >= 27 ? v - 27 : v;
  if (recid !== 0 && recid !== 1) return null;
  try {
    const pub = native.ecdsaRecover(sig.subarray(0, 64), recid, hexToBytes(digest), false);
    return getAddress(`0x${keccak256(pub.subarray(1)).slice(-40)}`);
  } catch {
    return null;
  }
}

/**
 * The signature check is the CPU cost of a paid read: @x402/evm recovers EOA signatures with
 * viem's pure-JS secp256k1 (~2.4 ms); libsecp256k1 does it in ~0.07 ms. The facilitator
 * verifies an EOA's signature itself and a contract wallet's through ERC-1271
 * isValidSignature, choosing by the payer's code. This signer reports accounts without code
 * as having code, so every check takes the ERC-1271 path, and answers isValidSignature for
 * those accounts by native recovery; accounts with real code are still asked on chain.
 * Everything else the facilitator does (terms, balance, simulation, settlement) is unchanged.
 */
export function withNativeEcdsa(signer: FacilitatorEvmSigner, native: NativeSecp256k1): FacilitatorEvmSigner {
  // The facilitator asks for the payer's code just before isValidSignature: what it was told
  // is remembered briefly, so answering costs no second eth_getCode.
  const seen = new Map<string, { hasCode: boolean; at: number }>();
  const remember = (address: string, code: Hex | undefined) => {
    if (seen.size >= CODE_MEMORY_ENTRIES) seen.clear();
    seen.set(address.toLowerCase(), { hasCode: code !== undefined && code !== "0x", at: Date.now() });
  };
  const hasCode = async (address: Address) => {
    const known = seen.get(address.toLowerCase());
    if (known && Date.now() - known.at < CODE_MEMORY_MS) return known.hasCode;
    const code = await signer.getCode({ address });
    remember(address, code);
    return code !== undefined && code !== "0x";
  };
  return {
    ...signer,
    async getCode(args) {
      const code = await signer.getCode(args);
      remember(args.address, code);
      return code === undefined || code === "0x" ? NO_CODE_MARK : code;
    },
    async readContract(args) {
      if (args.functionName === "isValidSignature" && args.args?.length === 2 && !(await hasCode(args.address))) {
        const [digest, signature] = args.args as [Hex, Hex];
        const recovered = recoverNative(native, digest, signature);
        return recovered !== null && recovered === getAddress(args.address) ? ERC1271_MAGIC : ERC1271_FAIL;
      }
      return signer.readContract(args);
    },
  };
}
