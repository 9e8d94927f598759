import { paymentsDidDocument } from "@board/proto";
import { request } from "@board/service-kit";
import type { Request, Response } from "express";
import { sendUpstreamError } from "../http/errors.js";
import type { ReadDeps } from "../reads/read.js";

/**
 * GET /.well-known/did.json: the did:web document of the keys that sign offers and receipts
 * (payments keeps them). x402's offer-receipt verifiers resolve a receipt's kid here; every
 * key ever used is listed, so a receipt verifies long after its key stopped signing.
 */
export async function getDidDocument(deps: ReadDeps, _req: Request, res: Response): Promise<void> {
  try {
    const doc = await request(deps.nc, paymentsDidDocument, {}, { timeoutMs: deps.timeoutMs });
    res.status(200).type("application/did+json").setHeader("Cache-Control", "public, max-age=300").send(JSON.stringify(doc));
  } catch (err) {
    sendUpstreamError(res, err);
  }
}
