import { paymentsClaim, paymentsRelease, paymentsSettle, type ClaimReply, type PaymentCarrier, type Route, type ViewName } from "@board/proto";
import { isBusError, request, type Logger } from "@board/service-kit";
import type { Request, Response } from "express";
import type { ServedReads } from "../access/served-reads.js";
import { readBoardView, sendBoardView, type BoardViewDeps, type BoardViewReply } from "./board-view.js";
import { sendUpstreamError } from "./errors.js";
import { exposePaymentHeaders, queryString, sendPaymentRequired } from "./payment-required.js";

export interface PaidReadDeps extends BoardViewDeps {
  log: Logger;
  served: ServedReads;
}

/** The payment a request carries, and in which header. MPP's Authorization: Payment wins over x402 headers. */
export function paymentOf(req: Request): { carrier: PaymentCarrier; value: string } | null {
  const auth = req.headers.authorization;
  if (auth && /^Payment\s/i.test(auth)) return { carrier: "authorization", value: auth };
  const v2 = req.headers["payment-signature"];
  if (typeof v2 === "string" && v2.length > 0) return { carrier: "payment-signature", value: v2 };
  const v1 = req.headers["x-payment"];
  if (typeof v1 === "string" && v1.length > 0) return { carrier: "x-payment", value: v1 };
  return null;
}

/**
 * A paid read, end to end (DESIGN.md): claim the payment before anything is served; read the
 * board; settle; serve only what settled. A failed read releases the claim (nothing charged,
 * the payment usable again); a failed settlement serves nothing.
 */
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

  let claim: ClaimReply;
  try {
    claim = await request(deps.nc, paymentsClaim, { path: route.path, query: queryString(req), ...payment }, { timeoutMs: deps.timeoutMs * 3 });
  } catch (err) {
    if (isBusError(err) && err.status === 402) return sendPaymentRequired(deps, req, res, route, refusal(err.code, payment.carrier));
    return sendUpstreamError(res, err);
  }

  let read: BoardViewReply;
  try {
    read = await readBoardView(deps, req, view, params, { conditional: false });
  } catch (err) {
    await release(deps, claim, "board read failed");
    return sendUpstreamError(res, err);
  }

  let settled;
  try {
    settled = await request(deps.nc, paymentsSettle, { claim_id: claim.claim_id }, { timeoutMs: deps.timeoutMs * 10 });
  } catch (err) {
    if (isBusError(err) && err.status === 402) return sendPaymentRequired(deps, req, res, route, refusal(err.code, payment.carrier));
    return sendUpstreamError(res, err);
  }
  exposePaymentHeaders(res);
  res.setHeader("Cache-Control", "private, no-store");
  sendBoardView(req, res, read, settled.headers);
  deps.served(route.path, "x402");
}

/** A refused MPP credential is answered in MPP's problem+json; an x402 payment in the x402 body. */
const refusal = (code: string, carrier: PaymentCarrier) => ({ code, problem: carrier === "authorization" });

async function release(deps: PaidReadDeps, claim: ClaimReply, reason: string): Promise<void> {
  try {
    await request(deps.nc, paymentsRelease, { claim_id: claim.claim_id, reason }, { timeoutMs: deps.timeoutMs });
  } catch (err) {
    // The claim stays open; payments reconciles open claims, so it is not lost.
    deps.log.warn({ err, claim: claim.claim_id }, "release failed; left to reconciliation");
  }
}
