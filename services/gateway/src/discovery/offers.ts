import type { Rail, Route } from "@board/proto";

/**
 * The rails a paid read can be bought on (SPEC.md 4.1 rule 5), as discovery describes them
 * before any 402 is asked for. Which rails are offered is the payments service's
 * configuration: the route's 402 (and GET /api) is authoritative, these are the terms each
 * offer has when it is there. The asset ids are Circle's USDC on each mainnet.
 */
export interface RailTerms {
  readonly rail: Exclude<Rail, "mpp">;
  readonly scheme: "exact";
  /** CAIP-2, as x402 v2 names it. */
  readonly network: string;
  readonly asset: string;
  /** The network's name in the 402 body's v1 dialect; null: only v2 clients can pay on it. */
  readonly v1Network: string | null;
  readonly extra?: Readonly<Record<string, string>>;
  readonly note: string;
}

export const BASE_NETWORK = "eip155:8453";
export const BASE_USDC = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913";

export const RAILS: readonly RailTerms[] = [
  { rail: "base", scheme: "exact", network: BASE_NETWORK, asset: BASE_USDC, v1Network: "base", note: "USDC on Base, EIP-3009 transferWithAuthorization; gas paid by the service." },
  {
    rail: "solana",
    scheme: "exact",
    network: "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp",
    asset: "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v",
    v1Network: "solana",
    note: "USDC on Solana mainnet; the fee payer is sponsored.",
  },
  {
    rail: "algorand",
    scheme: "exact",
    network: "algorand:wGHE2Pwdvd7S12BL5FaOP20EGYesN73k",
    asset: "31566704",
    v1Network: null,
    note: "USDC (ASA 31566704) on Algorand mainnet; fees sponsored.",
  },
  {
    rail: "circle_batched",
    scheme: "exact",
    network: BASE_NETWORK,
    asset: BASE_USDC,
    v1Network: null,
    extra: { name: "GatewayWalletBatched" },
    note: "Circle's batched gasless rail: pick the accepts entry whose extra.name is GatewayWalletBatched; settles offchain against a Gateway balance.",
  },
];

/** MPP (SPEC.md 4.1 rule 5): method usdc, intent charge, on Base. */
export const MPP_TERMS = { method: "usdc", intent: "charge", network: BASE_NETWORK, currency: BASE_USDC, decimals: 6 } as const;

/**
 * The `x-payment-info` of a paid operation, in the canonical form mppx 0.11's discovery
 * reads and validates (mppx/discovery PaymentInfo: `offers[]` of amount, currency,
 * description, intent, method), per draft-payment-discovery. Only the MPP offer goes here:
 * x402's offers are another protocol and ride in `x-x402`.
 */
export function paymentInfo(route: Route): { offers: { amount: string; currency: string; description: string; intent: string; method: string }[] } {
  return {
    offers: [{ amount: priceOf(route), currency: MPP_TERMS.currency, description: route.summary, intent: MPP_TERMS.intent, method: MPP_TERMS.method }],
  };
}

/** The x402 offers of a paid operation (`x-x402`): the v2 requirements' fixed terms, one per rail, all at the route's price. */
export function x402Info(route: Route, resource: string) {
  return {
    x402Version: 2,
    resource,
    amount: priceOf(route),
    decimals: 6,
    accepts: RAILS.map((r) => ({
      scheme: r.scheme,
      network: r.network,
      asset: r.asset,
      amount: priceOf(route),
      ...(r.extra ? { extra: r.extra } : {}),
      v1Network: r.v1Network,
      note: r.note,
    })),
    headers: { challenge: "PAYMENT-REQUIRED", payment: ["PAYMENT-SIGNATURE", "X-PAYMENT"], receipt: "PAYMENT-RESPONSE" },
    extensions: ["payment-identifier", "bazaar", "offer-receipt", "sign-in-with-x"],
    catalogue: "/api",
    note: "Each rail is offered when the service is configured for it; the route's 402 lists the offers in force.",
  };
}

function priceOf(route: Route): string {
  if (route.price === null) throw new Error(`${route.path} is not sold per read`);
  return route.price.toString();
}
