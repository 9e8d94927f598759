import { paymentsReceipt, RECEIPT_PATH } from "@board/proto";
import { request } from "@board/service-kit";
import type { Request, Response } from "express";
import { sendError, sendUpstreamError } from "../http/errors.js";
import { paymentOf } from "./paid-read.js";
import { withinAnonymousBurst, type ReadDeps } from "./read.js";

/** How soon a pending settlement is worth asking about again: about one Base block. */
const PENDING_RETRY_SECONDS = 2;

/**
 * GET /api/receipt: the receipt of a paid read, asked after it, by the x402 payment that bought
 * it (the same PAYMENT-SIGNATURE or X-PAYMENT header) or by its payment-identifier id and payer.
 * Nothing is served or charged, and no redelivery window applies: a settlement answered pending
 * is found here final (or lost) once its block says so. Counted as a free read (the anonymous burst).
 */
export async function getReceipt(deps: ReadDeps, req: Request, res: Response, query: { payer?: string; payment_id?: string }): Promise<void> {
  const payment = paymentOf(req);
  if (payment?.carrier === "authorization")
    return sendError(res, "invalid_request", "An MPP credential's read is settled before it is answered: its Payment-Receipt is final. Ask with an x402 payment, or with payer and payment_id.");
  if (!payment && (query.payer === undefined || query.payment_id === undefined))
    return sendError(res, "invalid_query", `Give the x402 payment the read was bought with (PAYMENT-SIGNATURE or X-PAYMENT), or both payer and payment_id: ${RECEIPT_PATH}?payer=<address>&payment_id=<id>.`, {
      param: query.payer === undefined ? "payer" : "payment_id",
    });
  if (!(await withinAnonymousBurst(deps, req, res))) return;
  try {
    const asked = payment ? { carrier: payment.carrier, value: payment.value } : { payer: query.payer as string, payment_id: query.payment_id as string };
    const { headers, ...receipt } = await request(deps.nc, paymentsReceipt, asked, { timeoutMs: deps.timeoutMs });
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    if (receipt.settlement === "pending") res.setHeader("Retry-After", String(PENDING_RETRY_SECONDS));
    res.status(200).type("application/json").setHeader("Cache-Control", "no-store").send(JSON.stringify(receipt));
  } catch (err) {
    sendUpstreamError(res, err);
  }
}
