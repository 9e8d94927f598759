import type { IncomingMessage } from "node:http";
import type { PaymentCarrier, Route, ViewName } from "@board/proto";
import type { Logger } from "@board/service-kit";
import type { Request, Response } from "express";
import { purchaseRead, type Payment } from "../access/purchase.js";
import type { ServedReads } from "../access/served-reads.js";
import { deliveryOf, readBoardView, readDelivered, sendBoardView, type BoardViewDeps } from "./board-view.js";
import { sendUpstreamError } from "../http/errors.js";
import { CREDENTIAL_HEADERS, requestHeader, type RESPONSE_HEADERS } from "../http/headers.js";
import { queryString, sendPaymentRequired } from "./payment-required.js";

export interface PaidReadDeps extends BoardViewDeps {
  log: Logger;
  served: ServedReads;
}

/** On a paid read delivered again to a retry of its payment: which redelivery this is (1, 2, ...). */
export const REDELIVERY_HEADER = "Payment-Redelivery" satisfies keyof typeof RESPONSE_HEADERS;

/** The payment a request carries, and in which header. MPP's Authorization: Payment wins over x402 headers. */
export function paymentOf(req: IncomingMessage): Payment | null {
  const auth = requestHeader(req.headers, CREDENTIAL_HEADERS.authorization);
  if (auth && /^Payment\s/i.test(auth)) return { carrier: "authorization", value: auth };
  const v2 = requestHeader(req.headers, CREDENTIAL_HEADERS.x402);
  if (v2) return { carrier: "payment-signature", value: v2 };
  const v1 = requestHeader(req.headers, CREDENTIAL_HEADERS.x402v1);
  if (v1) return { carrier: "x-payment", value: v1 };
  return null;
}

/** A paid read over HTTP: the purchase (access/purchase.ts), answered with the view and its receipt, or a fresh 402. */
export async function servePaidRead(
  deps: PaidReadDeps,
  req: Request,
  res: Response,
  route: Route,
  view: ViewName,
  params: Record<string, string>,
): Promise<void> {
  const payment = req.method === "GET" ? paymentOf(req) : null;
  if (!payment) return sendPaymentRequired(deps, req, res, route);

  const bought = await purchaseRead(
    deps,
    { route, query: queryString(req), params, payment },
    (again) => (again ? readDelivered(deps, req, view, params, again) : readBoardView(deps, req, view, params, { conditional: false, paid: true })),
    deliveryOf,
  );
  if (bought.kind === "refused") return sendPaymentRequired(deps, req, res, route, refusal(bought.code, payment.carrier));
  if (bought.kind === "failed") return sendUpstreamError(res, bought.error);
  res.setHeader("Cache-Control", "private, no-store");
  // A redelivery says which it is; it is not a new served read (metering counts the purchase once).
  const again: Record<string, string> = bought.redelivered === undefined ? {} : { [REDELIVERY_HEADER]: String(bought.redelivered) };
  sendBoardView(req, res, bought.read, { ...bought.receipt.headers, ...again });
  if (bought.redelivered === undefined) deps.served(route.path, "x402");
}

/** A refused MPP credential is answered in MPP's problem+json; an x402 payment in the x402 body. */
const refusal = (code: string, carrier: PaymentCarrier) => ({ code, problem: carrier === "authorization" });
