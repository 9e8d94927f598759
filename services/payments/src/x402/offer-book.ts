import { PAID_ROUTES, type Route } from "@board/proto";
import { x402ResourceServer, type FacilitatorClient } from "@x402/core/server";
import type { PaymentRequired, PaymentRequirements } from "@x402/core/types";
import type { McpTool, SignInChallengeReply } from "@board/proto";
import { declarePaymentIdentifierExtension, PAYMENT_IDENTIFIER } from "@x402/extensions/payment-identifier";
import { buildSIWxSchema, SIGN_IN_WITH_X } from "@x402/extensions/sign-in-with-x";
import type { X402Rail } from "../rails/rail.js";
import { BAZAAR_KEY, bazaarDeclaration } from "./bazaar.js";
import { OFFER_RECEIPT } from "@x402/extensions/offer-receipt";
import type { OfferReceipts } from "../receipts/offer-receipts.js";

/** An offer in x402 v1's words (legacy x402-fetch 1.x reads these from the 402 body). */
export interface OfferV1 {
  scheme: string;
  network: string;
  maxAmountRequired: string;
  resource: string;
  description: string;
  mimeType: string;
  outputSchema: Record<string, unknown>;
  payTo: string;
  maxTimeoutSeconds: number;
  asset: string;
  extra: Record<string, unknown>;
}

/** One rail's offer for a route. */
export interface Offer {
  rail: X402Rail;
  requirement: PaymentRequirements;
}

/** The sign-in-with-x challenge of one 402, issued by identity (its nonce is one identity can recognise); null when identity cannot answer. */
export type SignInChallenger = (resourceUrl: string) => Promise<SignInChallengeReply | null>;

/**
 * Every paid route's offers, built once per price and rail by x402's resource server from the
 * rails' scheme servers: the same amount on each rail that is offered now (`offered`: its
 * backend answered, see rail-watch.ts). The 402 itself (with its sign-in-with-x declaration,
 * fresh per response) is built here too.
 */
export class OfferBook {
  private readonly server: x402ResourceServer;
  /** Each rail's requirement per price, once built. */
  private readonly built = new Map<X402Rail, Map<bigint, PaymentRequirements>>();

  constructor(
    /** Every configured rail, in the order of the 402's `accepts`; payments on any of them are settled and reconciled. */
    readonly rails: readonly X402Rail[],
    ours: FacilitatorClient,
    private readonly publicBaseUrl: URL,
    private readonly maxTimeoutSeconds: number,
    private readonly signInChallenge: SignInChallenger,
    private readonly offered: (rail: X402Rail) => boolean = () => true,
    /** Signs each offer (x402 offer-receipt); null when nothing is sold (no rail, no receipt keys). */
    private readonly offerReceipts: OfferReceipts | null = null,
  ) {
    this.server = new x402ResourceServer(ours);
    for (const rail of rails) if (rail.server) this.server.register(rail.network, rail.server);
  }

  /** Fetches our own facilitator's supported kinds (in this process: no backend is asked). */
  async initialize(): Promise<void> {
    // x402's resource server refuses to initialize without a supported kind: with no rail
    // configured there is nothing to ask the facilitator about.
    if (this.rails.some((r) => r.server)) await this.server.initialize();
  }

  /** Builds a rail's offers for every price in the catalogue, before it is offered (a rail built by its library asks its backend here). */
  async prepare(rail: X402Rail): Promise<void> {
    for (const route of PAID_ROUTES) if (route.price !== null) await this.requirement(rail, route.price);
  }

  /** The configured rails not offered now (their backend has not answered yet). */
  unavailable(): X402Rail[] {
    return this.rails.filter((r) => !this.offered(r));
  }

  async offers(route: Route): Promise<Offer[]> {
    if (route.price === null) throw new Error(`${route.path} is not sold per read`);
    const offers: Offer[] = [];
    for (const rail of this.rails) {
      if (!this.offered(rail)) continue;
      const requirement = this.built.get(rail)?.get(route.price) ?? (await this.requirement(rail, route.price));
      if (requirement) offers.push({ rail, requirement });
    }
    return offers;
  }

  private async requirement(rail: X402Rail, price: bigint): Promise<PaymentRequirements | undefined> {
    let byPrice = this.built.get(rail);
    if (!byPrice) this.built.set(rail, (byPrice = new Map()));
    const known = byPrice.get(price);
    if (known) return known;
    let requirement: PaymentRequirements | undefined;
    if (rail.offer) requirement = await rail.offer(price, this.maxTimeoutSeconds);
    else if (rail.resourceConfig) [requirement] = await this.server.buildPaymentRequirements(rail.resourceConfig(price, this.maxTimeoutSeconds));
    if (requirement) byPrice.set(price, requirement);
    return requirement;
  }

  resourceUrl(path: string, query: string): string {
    const url = new URL(path, this.publicBaseUrl);
    url.search = query;
    return url.toString();
  }

  /**
   * The v2 PaymentRequired of a route (PAYMENT-REQUIRED header and the body's `v2`), declaring
   * payment-identifier, bazaar discovery, and sign-in-with-x with a fresh challenge from identity. Without one (identity unreachable) the
   * 402 still lets the client pay; it only lacks the sign-in offer. `tool`: the 402 answers this
   * paid MCP tool's call, and bazaar declares the tool instead of the HTTP route.
   */
  async paymentRequired(route: Route, resourceUrl: string, error?: string, tool?: McpTool): Promise<PaymentRequired> {
    const [offers, challenge] = await Promise.all([this.offers(route), this.signInChallenge(resourceUrl)]);
    // payment-identifier, optional: a retry carrying the same id is delivered the read again (claims/redelivery.ts).
    // bazaar: how to call the route or tool and what it answers, built once per route and tool (x402/bazaar.ts).
    const extensions: Record<string, unknown> = {
      [PAYMENT_IDENTIFIER]: declarePaymentIdentifierExtension(false),
      [BAZAAR_KEY]: bazaarDeclaration(route, this.publicBaseUrl, tool),
    };
    if (challenge) extensions[SIGN_IN_WITH_X] = { info: challenge.info, supportedChains: challenge.supportedChains, schema: buildSIWxSchema() };
    const requirements = offers.map((o) => o.requirement);
    // offer-receipt: each accepts entry signed, for the route (queries are not part of what is sold).
    if (this.offerReceipts && requirements.length > 0)
      extensions[OFFER_RECEIPT] = { info: { version: 1, offers: await this.offerReceipts.signOffers(this.resourceUrl(route.path, ""), requirements) } };
    return this.server.createPaymentRequiredResponse(requirements, { url: resourceUrl, description: route.summary, mimeType: "application/json" }, error, extensions);
  }

  /** The v1 dialect: only rails legacy clients know (Base, Solana), with v1 network names. */
  async v1Accepts(route: Route, resourceUrl: string): Promise<OfferV1[]> {
    const offers = await this.offers(route);
    return offers
      .filter((o) => o.rail.v1Network !== null)
      .map(({ rail, requirement: r }) => ({
        scheme: r.scheme,
        network: rail.v1Network as string,
        maxAmountRequired: r.amount,
        resource: resourceUrl,
        description: route.summary,
        mimeType: "application/json",
        outputSchema: {},
        payTo: r.payTo,
        maxTimeoutSeconds: r.maxTimeoutSeconds,
        asset: r.asset,
        extra: r.extra,
      }));
  }
}
