import { PAID_ROUTES, type RequirementsReply, type Route } from "@board/proto";
import { encodePaymentRequiredHeader } from "@x402/core/http";
import { BusError } from "@board/service-kit";
import { paidToolFor } from "./bazaar.js";
import type { OfferBook } from "./offer-book.js";
import { REFUSAL_ADVICE } from "./reasons.js";
import type { ErrorCode } from "@board/proto";
import type { MppRail } from "../rails/mpp/index.js";

/** The MPP side of a 402: a challenge for WWW-Authenticate, when the MPP rail is configured. */
export type MppChallenger = Pick<MppRail, "challenge" | "network">;

/**
 * A paid route's 402, in the layout both client generations pay from (DECISIONS.md):
 * - PAYMENT-REQUIRED: the base64 v2 PaymentRequired (@x402/fetch 2.x reads only this);
 * - the JSON body in the v1 dialect (x402Version 1, `accepts` with only the offers v1
 *   clients know, under their v1 network names), which x402-fetch 1.x reads, plus the whole
 *   v2 PaymentRequired under `v2` and our reason code and advice;
 * - WWW-Authenticate: Payment, the MPP challenge.
 */
export async function paymentRequired(
  book: OfferBook,
  mpp: MppChallenger | null,
  route: Route,
  args: { path: string; query: string; error?: string | undefined; message?: string | undefined; problem?: boolean | undefined; tool?: string | undefined },
): Promise<RequirementsReply> {
  const tool = args.tool === undefined ? undefined : paidToolFor(route, args.tool);
  if (args.tool !== undefined && !tool) throw new BusError("invalid_request", 400, `${args.tool} is not a paid MCP tool that sells ${route.path}`);
  const resourceUrl = book.resourceUrl(args.path, args.query);
  const code = args.error ?? "payment_required";
  const v2 = await book.paymentRequired(route, resourceUrl, code, tool);
  const accepts = await book.v1Accepts(route, resourceUrl);
  const message = args.message ?? REFUSAL_ADVICE[code as ErrorCode] ?? REFUSAL_ADVICE.payment_required;
  const headers: Record<string, string> = { "PAYMENT-REQUIRED": encodePaymentRequiredHeader(v2) };
  if (mpp && route.price !== null) {
    // Scoped to the path: a cache-busting query string does not void an MPP payment.
    headers["WWW-Authenticate"] = await mpp.challenge({ amount: route.price, resource: args.path, description: route.summary });
  }
  if (args.problem) {
    // An MPP credential was refused: RFC 9457 problem details as MPP specifies, with our reason code and a fresh challenge.
    // mppx is loaded once MPP is used: only a refused MPP credential asks for this.
    const { Errors } = await import("mppx");
    const problem = { ...new Errors.VerificationFailedError({ reason: message }).toProblemDetails(), code };
    return { body: JSON.stringify(problem), headers: { ...headers, "Content-Type": "application/problem+json" } };
  }
  const body = { x402Version: 1, error: code, message, resource: resourceUrl, accepts, v2 };
  return { body: JSON.stringify(body), headers };
}

/** GET /api: every paid route with its price, tiers and every offer (v2 and v1 dialect). */
export async function catalogue(book: OfferBook, mpp: MppChallenger | null): Promise<string> {
  const routes = [];
  for (const route of PAID_ROUTES) {
    const resourceUrl = book.resourceUrl(route.path, "");
    const offers = await book.offers(route);
    routes.push({
      path: route.path,
      resource: resourceUrl,
      summary: route.summary,
      price: { amount: String(route.price), asset: "USDC", decimals: 6 },
      tiers: route.tiers,
      accepts: offers.map((o) => ({ rail: o.rail.rail, ...o.requirement })),
      accepts_v1: await book.v1Accepts(route, resourceUrl),
      mpp: mpp ? { method: "usdc", intent: "charge", network: mpp.network, amount: String(route.price), challenge: "WWW-Authenticate: Payment on the route's 402" } : null,
    });
  }
  return JSON.stringify({
    x402Version: 2,
    error: "payment_required",
    message: "Every paid read and its offers. Each route's own 402 carries the PAYMENT-REQUIRED header to pay from.",
    routes,
  });
}
