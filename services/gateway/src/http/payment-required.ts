import { PAID_ROUTES, type Route } from "@board/proto";
import type { Response } from "express";

const priceOf = (route: Route) => ({ amount: String(route.price), asset: "USDC", decimals: 6 });

function send402(res: Response, message: string, extra: Record<string, unknown>): void {
  res
    .status(402)
    .type("application/json")
    .setHeader("Cache-Control", "no-store")
    .send(JSON.stringify({ error: { code: "payment_required", status: 402, message }, ...extra }));
}

/**
 * The 402 of a paid route. Offers, the PAYMENT-REQUIRED header and payment acceptance come
 * with the payments service; until then the body says plainly what the read costs and
 * that no payment can be taken yet, so nothing is charged and nothing is served.
 */
export function sendPaymentRequired(res: Response, route: Route): void {
  send402(res, `${route.path} is a paid read. Payments are not accepted yet; no payment will be taken or charged.`, {
    resource: route.path,
    price: priceOf(route),
    catalogue: "/api",
  });
}

/** GET /api: every paid route with its price. */
export function sendCatalogue(res: Response): void {
  send402(res, "Every paid read and its price. Payments are not accepted yet.", {
    routes: PAID_ROUTES.map((r) => ({ path: r.path, price: priceOf(r), tiers: r.tiers })),
  });
}
