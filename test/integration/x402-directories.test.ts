import { OUTPUT_EXAMPLES, PAID_ROUTES, sellingUrl, VIEW_SCHEMAS, X402_DISCOVERY_RESOURCES_PATH } from "@board/proto";
import { startEvmChain, type EvmChain } from "@board/test-chains/evm";
import { decodePaymentRequiredHeader, HTTPFacilitatorClient } from "@x402/core/http";
import { BAZAAR, validateAndExtract, validateDiscoveryExtension, withBazaar, type DiscoveryExtension, type DiscoveryResourcesResponse } from "@x402/extensions/bazaar";
import { isValidServiceName, sanitizeTags } from "@x402/extensions/bazaar";
import type { Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { Stack } from "./harness.js";

// What x402 directories crawl, served and read as they read it: x402scan's /.well-known/x402
// (version 1, the resources' URLs, which it then probes for their 402) and a bazaar's
// GET /discovery/resources, read here by @x402/extensions' own bazaar client.

/** The discovery document x402scan and agent wallets parse (version 1; resources are URLs). */
const X402DiscoveryDocument = z.object({
  version: z.literal(1),
  resources: z.array(z.url()).min(1),
  ownershipProofs: z.array(z.string()).optional(),
  instructions: z.string().optional(),
  description: z.string().optional(),
});

const stack = new Stack();
let chain: EvmChain;
const payTo = privateKeyToAccount(generatePrivateKey()).address;

beforeAll(async () => {
  chain = await startEvmChain({ accounts: 2 });
  await stack.start();
  await stack.startBoard();
  await stack.publishTwoDays();
  await stack.startPayments({ PAY_TO_BASE: payTo, BASE_RPC_URL: chain.rpcUrl, BASE_FACILITATOR_KEY: chain.accounts[0] as Hex });
  await stack.untilServing();
}, 90_000);
afterAll(async () => {
  await stack.stop();
  await chain?.stop();
});

const withoutExample = (d: DiscoveryExtension) => {
  const { example: _shape, ...output } = (d.info as { output: { example: unknown } }).output;
  return output;
};

function declared(extensions: Record<string, unknown> | undefined): DiscoveryExtension {
  const declaration = extensions?.[BAZAAR.key] as DiscoveryExtension | undefined;
  expect(declaration).toBeDefined();
  expect(validateDiscoveryExtension(declaration!)).toEqual({ valid: true });
  expect(validateAndExtract(declaration!).valid).toBe(true);
  return declaration!;
}

describe("/.well-known/x402", () => {
  it("lists every paid resource's URL, each answering 402 with its offers and a valid bazaar declaration", async () => {
    const res = await fetch(`${stack.base}/.well-known/x402`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    const doc = X402DiscoveryDocument.parse(await res.json());
    const base = new URL(stack.base);
    expect(doc.resources).toEqual(PAID_ROUTES.map((r) => sellingUrl(r, base)));
    expect(doc.instructions).toContain(`${stack.base}${X402_DISCOVERY_RESOURCES_PATH}`);
    for (const url of doc.resources) {
      expect(new URL(url).origin, url).toBe(base.origin);
      const probe = await fetch(url);
      expect(probe.status, url).toBe(402);
      const required = decodePaymentRequiredHeader(probe.headers.get("payment-required")!);
      expect(required.accepts.length, url).toBeGreaterThan(0);
      expect(required.accepts.every((a) => a.payTo.toLowerCase() === payTo.toLowerCase() || a.network !== "eip155:8453")).toBe(true);
      declared(required.extensions);
    }
  });

  it("answers a conditional request 304 (a crawler's revisit)", async () => {
    const first = await fetch(`${stack.base}/.well-known/x402`);
    const again = await fetch(`${stack.base}/.well-known/x402`, { headers: { "if-none-match": first.headers.get("etag")! } });
    expect(again.status).toBe(304);
  });
});

describe("/discovery/resources, read by the bazaar client", () => {
  const bazaar = () => withBazaar(new HTTPFacilitatorClient({ url: stack.base }));

  it("lists every paid resource with the offers and declaration its own 402 gives", async () => {
    const list: DiscoveryResourcesResponse = await bazaar().extensions.bazaar.listResources();
    expect(list.x402Version).toBe(2);
    expect(list.pagination).toEqual({ limit: 100, offset: 0, total: PAID_ROUTES.length });
    expect(list.items).toHaveLength(PAID_ROUTES.length);
    const base = new URL(stack.base);
    for (const [i, route] of PAID_ROUTES.entries()) {
      const item = list.items[i]!;
      expect(item.type).toBe("http");
      expect(item.x402Version).toBe(2);
      expect(new URL(item.resource).pathname).toBe(route.path);
      expect(Number.isNaN(Date.parse(item.lastUpdated))).toBe(false);
      expect(isValidServiceName(item.serviceName)).toBe(true);
      expect(sanitizeTags(item.tags)).toEqual(item.tags);
      const declaration = declared(item.extensions);
      expect(declaration.info.input).toMatchObject({ type: "http", method: "GET" });
      // The same offers a buyer meets at the resource (signatures and all), and the same declaration.
      const required = decodePaymentRequiredHeader((await fetch(sellingUrl(route, base))).headers.get("payment-required")!);
      expect(item.accepts).toEqual(required.accepts);
      // The same declaration, but for its output example: a served board's read of the route, not the 402's bare shape.
      const own = required.extensions?.[BAZAAR.key] as DiscoveryExtension;
      const { example, ...output } = (declaration.info as { output: { example: unknown } }).output;
      expect({ ...declaration, info: { ...declaration.info, output } }).toEqual({ ...own, info: { ...own.info, output: withoutExample(own) } });
      expect(example).toEqual(OUTPUT_EXAMPLES[route.path]);
      expect(VIEW_SCHEMAS[route.view!].safeParse(example).success, route.path).toBe(true);
      expect(item.resource).toBe(required.resource.url);
      expect(item.description).toBe(required.resource.description);
    }
  });

  it("pages and filters as the bazaar's list does, and refuses a page it cannot give", async () => {
    const all = await bazaar().extensions.bazaar.listResources();
    const page = await bazaar().extensions.bazaar.listResources({ limit: 5, offset: 5 });
    expect(page.pagination).toEqual({ limit: 5, offset: 5, total: PAID_ROUTES.length });
    expect(page.items.map((i) => i.resource)).toEqual(all.items.slice(5, 10).map((i) => i.resource));
    expect((await bazaar().extensions.bazaar.listResources({ type: "mcp" })).items).toEqual([]);
    // Filters by offer: this stack sells on Base only, to payTo.
    const network = all.items[0]!.accepts[0]!.network;
    expect((await bazaar().extensions.bazaar.listResources({ network })).pagination.total).toBe(PAID_ROUTES.length);
    expect((await bazaar().extensions.bazaar.listResources({ network: "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp" })).pagination.total).toBe(0);
    expect((await bazaar().extensions.bazaar.listResources({ payTo: payTo.toLowerCase() })).pagination.total).toBe(PAID_ROUTES.length);
    expect((await bazaar().extensions.bazaar.listResources({ scheme: "exact", payTo: privateKeyToAccount(generatePrivateKey()).address })).items).toEqual([]);
    const refused = await fetch(`${stack.base}${X402_DISCOVERY_RESOURCES_PATH}?limit=0`);
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("invalid_query");
  });
});
