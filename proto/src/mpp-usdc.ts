import { z } from "zod/mini";

/**
 * The MPP `usdc` payment method, intent `charge` (SPEC.md 4.1 rule 5): the challenge's `request`
 * asks for an exact amount of USDC to a recipient on one EVM chain. The payments service issues
 * it and the client pays it, so both take it from here. The credential's payload is mppx's own
 * `evm` EIP-3009 authorization (mppx/evm AuthorizationPayloadSchema), so each side builds the
 * method with mppx from these pieces; written in zod's mini form, as mppx's methods take.
 */
export const USDC_METHOD = "usdc" as const;
export const CHARGE_INTENT = "charge" as const;
/** USDC's 6 decimals: amounts on the wire are base units. */
export const USDC_DECIMALS = 6;

const baseUnits = z.string().check(z.regex(/^\d+$/, "amount must be an integer number of base units"));
/** A 0x-prefixed EVM address, as mppx's z.address() checks it. */
const address = z.string().check(z.regex(/^0x[0-9a-fA-F]{40}$/, "Invalid address"));

/** The EIP-712 domain name and version of the token, which the payer signs against. */
export const Eip712Token = z.object({ name: z.string().check(z.minLength(1)), version: z.string().check(z.minLength(1)) });
export type Eip712Token = z.infer<typeof Eip712Token>;

/** The challenge's `request`: what must be paid, to whom, in which token, on which chain. */
export const UsdcChargeRequest = z.object({
  /** Base units (6 decimals). */
  amount: baseUnits,
  /** The USDC contract. */
  currency: address,
  /** Our payTo address. */
  recipient: address,
  /** A fresh id per 402 (our quote id): challenge ids stay unique and the receipt echoes it. */
  externalId: z.optional(z.string()),
  methodDetails: z.object({
    chainId: z.number(),
    /** CAIP-2 form of chainId, as the x402 offers name it. */
    network: z.string(),
    decimals: z.number(),
    eip712: Eip712Token,
  }),
});
export type UsdcChargeRequest = z.infer<typeof UsdcChargeRequest>;
