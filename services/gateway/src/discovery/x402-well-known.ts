import { PAID_ROUTES, sellingUrl, X402_DISCOVERY_RESOURCES_PATH } from "@board/proto";
import { PRICE_RANGE, SERVICE_SUMMARY } from "./terms.js";

/**
 * /.well-known/x402: the discovery document x402 directories crawl (x402scan registers an
 * origin from it, agent wallets list a host's paid resources with it): version 1, every paid
 * resource's URL, ready to probe (its needed parameters filled in, so it answers 402), and
 * how to call them. No ownership proofs: the resources are on this host.
 */
export interface X402DiscoveryDocument {
  version: 1;
  resources: string[];
  ownershipProofs: string[];
  description: string;
  instructions: string;
}

export function x402DiscoveryDocument(base: URL): X402DiscoveryDocument {
  const at = (path: string) => new URL(path, base.origin).toString();
  return {
    version: 1,
    resources: PAID_ROUTES.map((route) => sellingUrl(route, base)),
    ownershipProofs: [],
    description: SERVICE_SUMMARY,
    instructions:
      `Each resource is a GET sold per read (${PRICE_RANGE} in USDC) over x402 (v2, and v1 for older clients) or MPP: ` +
      "a request without payment answers 402 with the offers in PAYMENT-REQUIRED and a bazaar declaration of its parameters and answer. " +
      `Every resource's offers and declaration in one list: ${at(X402_DISCOVERY_RESOURCES_PATH)}; the whole API: ${at("/openapi.json")}; for language models: ${at("/llms.txt")}. ` +
      "Poll /api/board/state (free) and buy only when a view's hash changed.",
  };
}
