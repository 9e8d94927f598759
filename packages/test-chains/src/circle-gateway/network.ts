import type { Address } from "viem";

/**
 * One network the stand-in serves: what Circle's `GET /v1/x402/supported` advertises for it and
 * the EIP-712 domain payers sign against (GatewayWallet, not USDC, is the verifying contract).
 */
export interface GatewayNetwork {
  /** CAIP-2 id, as x402 v2 requirements carry it. */
  network: `eip155:${number}`;
  chainId: number;
  /** Circle's Gateway domain id for the chain (Base: 6), as /v1/balances sources carry it. */
  domain: number;
  usdc: Address;
  gatewayWallet: Address;
}

/** The EIP-712 domain name and version of Gateway's batched authorizations. */
export const GATEWAY_BATCHED_NAME = "GatewayWalletBatched";
export const GATEWAY_BATCHED_VERSION = "1";
/**
 * Circle refuses authorizations valid for less than 7 days (it advertises this as
 * extra.minValiditySeconds); the SDK signs for 7 days plus a 100 s buffer.
 */
export const GATEWAY_MIN_VALIDITY_SECONDS = 7 * 24 * 60 * 60;
export const USDC_DECIMALS = 6;

/** Base mainnet, with Circle's mainnet GatewayWallet and Base USDC. */
export const GATEWAY_BASE: GatewayNetwork = {
  network: "eip155:8453",
  chainId: 8453,
  domain: 6,
  usdc: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
  gatewayWallet: "0x77777777Dcc4d5A8B6E418Fd04D8997ef11000eE",
};

/** Base Sepolia, with Circle's testnet GatewayWallet and USDC. */
export const GATEWAY_BASE_SEPOLIA: GatewayNetwork = {
  network: "eip155:84532",
  chainId: 84532,
  domain: 6,
  usdc: "0x036CbD53842c5426634e7929541eC2318f3dCF7e",
  gatewayWallet: "0x0077777d7EBA4688BDeF3E311b846F25870A19B9",
};

/** EIP-3009's TransferWithAuthorization, the type Gateway payers sign. */
export const transferWithAuthorizationTypes = {
  TransferWithAuthorization: [
    { name: "from", type: "address" },
    { name: "to", type: "address" },
    { name: "value", type: "uint256" },
    { name: "validAfter", type: "uint256" },
    { name: "validBefore", type: "uint256" },
    { name: "nonce", type: "bytes32" },
  ],
} as const;
