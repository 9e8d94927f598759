import { ROUTE_BY_PATH, type ClaimReply, type ClaimRequest, type SettleReply, type SettlementEvent } from "@board/proto";
import { BusError, type Logger } from "@board/service-kit";
import { encodePaymentResponseHeader } from "@x402/core/http";
import type { FacilitatorClient } from "@x402/core/server";
import type { PaymentPayload, PaymentRequirements, SettleResponse } from "@x402/core/types";
import type { X402Rail } from "../rails/rail.js";
import { decodePaymentHeader } from "../x402/payment-header.js";
import { matchV1, matchV2 } from "../x402/match.js";
import type { OfferBook } from "../x402/offer-book.js";
import { reasonCode } from "../x402/reasons.js";
import type { ClaimStore } from "./store.js";

/** What a claim keeps so that settlement (now, or reconciliation after a restart) can run. */
interface StoredPayment {
  version: 1 | 2;
  payload: unknown;
  requirement: unknown;
}

/**
 * The paid-read ledger: a payment is verified and claimed (unique in Postgres) before
 * anything is served, settled only after the read succeeded, released when it failed.
 */
export class ClaimDesk {
  constructor(
    private readonly book: OfferBook,
    private readonly ours: FacilitatorClient,
    private readonly store: ClaimStore,
    private readonly log: Logger,
    private readonly onSettled: (event: SettlementEvent) => void = () => undefined,
  ) {}

  private railNamed(name: string): X402Rail | undefined {
    return this.book.rails.find((r) => r.rail === name);
  }

  async claim(req: ClaimRequest): Promise<ClaimReply> {
    const route = ROUTE_BY_PATH.get(req.path);
    if (!route || route.kind !== "paid" || route.price === null) throw new BusError("not_found", 404, `${req.path} is not a paid route`);
    if (req.carrier === "authorization") throw new BusError("payment_unsupported_scheme", 402, "MPP credentials are not accepted on this rail");
    const decoded = decodePaymentHeader(req.value);
    if (!decoded) throw new BusError("payment_invalid_header");

    const offers = await this.book.offers(route);
    const match = decoded.version === 2 ? matchV2(offers, decoded.payload, route.path) : matchV1(offers, decoded.payload);
    if (!match.ok) throw new BusError(match.code, 402, match.detail);
    const { rail } = match.offer;
    const requirement =
      decoded.version === 2
        ? match.offer.requirement
        : (await this.book.v1Accepts(route, this.book.resourceUrl(req.path, req.query ?? ""))).find((o) => o.network === rail.v1Network);
    if (!requirement) throw new BusError("payment_network_mismatch");

    const key = rail.paymentKey(decoded.payload);
    const payer = rail.payer(decoded.payload);
    if (!key || !payer) throw new BusError("payment_invalid_header", 402, "the payload lacks its authorization");

    if (await this.store.taken(key)) throw new BusError("payment_already_used");

    const facilitator = rail.facilitator(this.ours);
    let verified;
    try {
      verified = await facilitator.verify(decoded.payload as PaymentPayload, requirement as PaymentRequirements);
    } catch (err) {
      // The chain or the facilitator could not be asked: our fault, worth a retry, and nothing was claimed.
      this.log.warn({ err, rail: rail.rail }, "payment verification unavailable");
      throw new BusError("service_unavailable", 503, "payment verification is unavailable");
    }
    if (!verified.isValid) {
      const code = reasonCode(verified.invalidReason);
      this.log.info({ rail: rail.rail, reason: verified.invalidReason, code }, "payment refused");
      throw new BusError(code, 402, verified.invalidReason);
    }

    const stored: StoredPayment = { version: decoded.version, payload: decoded.payload, requirement };
    const outcome = await this.store.claim({
      paymentKey: key,
      rail: rail.rail,
      network: rail.network,
      route: route.path,
      amount: route.price,
      payer,
      payment: stored,
    });
    if (!outcome.ok) throw new BusError("payment_already_used");
    return { claim_id: outcome.id, rail: rail.rail, network: rail.network, payer, amount: route.price.toString() };
  }

  async settle(claimId: string): Promise<SettleReply> {
    const row = await this.store.get(claimId);
    if (!row || row.state !== "claimed") throw new BusError("payment_already_used", 402, "the claim is not open");
    const rail = this.railNamed(row.rail);
    if (!rail) throw new BusError("payment_settlement_failed", 402, "the claim's rail is not configured");
    const stored = row.payment as StoredPayment;
    let result: SettleResponse;
    try {
      result = await rail.facilitator(this.ours).settle(stored.payload as PaymentPayload, stored.requirement as PaymentRequirements);
    } catch (err) {
      // Unknown outcome (the transaction may be in flight): the claim stays open for
      // reconciliation and the read is not served.
      this.log.warn({ err, claim: claimId, rail: rail.rail }, "settlement outcome unknown; left for reconciliation");
      throw new BusError("payment_settlement_failed");
    }
    if (!result.success) {
      await this.store.failed(claimId, result.errorReason ?? "settlement failed");
      const code = reasonCode(result.errorReason);
      throw new BusError(code === "payment_rejected" ? "payment_settlement_failed" : code, 402, result.errorReason);
    }
    const receipt = { ...result, claim_id: claimId };
    if (!(await this.store.settled(claimId, result.transaction, receipt))) throw new BusError("payment_already_used", 402, "the claim was closed meanwhile");
    const settledAt = new Date().toISOString();
    this.onSettled({ settled_at: settledAt, rail: rail.rail, network: result.network });
    const header = encodePaymentResponseHeader(result);
    const headers: Record<string, string> = { "PAYMENT-RESPONSE": header };
    // x402-fetch 1.x reads its receipt from X-PAYMENT-RESPONSE.
    if (stored.version === 1) headers["X-PAYMENT-RESPONSE"] = header;
    return { headers, transaction: result.transaction, network: result.network, settled_at: settledAt };
  }

  async release(claimId: string, reason: string): Promise<boolean> {
    return this.store.release(claimId, reason);
  }

  async status() {
    const s = await this.store.settlementStats();
    return { last_settlement_at: s.lastSettledAt?.toISOString() ?? null, settlements: s.settlements };
  }
}
