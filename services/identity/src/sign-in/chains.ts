import type { SupportedSignInChain } from "@board/proto";
import { decodeBase58 } from "@x402/extensions/sign-in-with-x";
import { isValidAddress as isAlgorandAddress } from "algosdk";
import { getAddress, isAddress } from "viem";

export const BASE_MAINNET = "eip155:8453";
export const SOLANA_MAINNET = "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp";
/** CAIP-2 for Algorand mainnet: the first 32 characters of the genesis hash, the id @x402/avm uses. */
export const ALGORAND_MAINNET = "algorand:wGHE2Pwdvd7S12BL5FaOP20EGYesN73k";
/** The full genesis-hash form, which @x402/avm also accepts: the same chain. */
const ALGORAND_MAINNET_FULL = "algorand:wGHE2Pwdvd7S12BL5FaOP20EGYesN73ktiC1qzkkit8=";

export type SignInFamily = "evm" | "solana" | "algorand";

/**
 * In this order: @x402/extensions' client signs on the first chain of its signature type,
 * so Solana must come before Algorand (both ed25519).
 */
export const SUPPORTED_SIGN_IN_CHAINS: readonly SupportedSignInChain[] = [
  { chainId: BASE_MAINNET, type: "eip191" },
  { chainId: SOLANA_MAINNET, type: "ed25519" },
  { chainId: ALGORAND_MAINNET, type: "ed25519" },
];

export interface SignInChainInfo {
  /** The id a principal is counted under (aliases resolve to it). */
  chainId: string;
  type: SupportedSignInChain["type"];
  family: SignInFamily;
}

const CHAINS = new Map<string, SignInChainInfo>([
  [BASE_MAINNET, { chainId: BASE_MAINNET, type: "eip191", family: "evm" }],
  [SOLANA_MAINNET, { chainId: SOLANA_MAINNET, type: "ed25519", family: "solana" }],
  [ALGORAND_MAINNET, { chainId: ALGORAND_MAINNET, type: "ed25519", family: "algorand" }],
  [ALGORAND_MAINNET_FULL, { chainId: ALGORAND_MAINNET, type: "ed25519", family: "algorand" }],
]);

/** The chain a CAIP-2 id names, or undefined when we do not sign in on it. */
export function signInChain(chainId: string): SignInChainInfo | undefined {
  return CHAINS.get(chainId);
}

/** Whether the address is well formed for the chain (EVM: 0x + 40 hex, checksum checked when mixed case). */
export function isValidSignInAddress(family: SignInFamily, address: string): boolean {
  switch (family) {
    case "evm":
      return isAddress(address);
    case "solana":
      try {
        return decodeBase58(address).length === 32;
      } catch {
        return false;
      }
    case "algorand":
      return isAlgorandAddress(address);
  }
}

/** The address as the message carries it: EIP-55 checksummed for EVM (SIWE requires it), as given elsewhere. */
export function messageAddress(family: SignInFamily, address: string): string {
  return family === "evm" ? getAddress(address) : address;
}

/** One address, one count: EVM addresses are case-insensitive, so they are counted lowercased. */
export function signInPrincipalId(chain: SignInChainInfo, address: string): string {
  return `wallet:${chain.chainId}:${chain.family === "evm" ? address.toLowerCase() : address}`;
}
