import { Delivery } from "@board/proto";
import type { Logger } from "@board/service-kit";
import type { JWSSignedReceipt } from "@x402/extensions/offer-receipt";
import type { ClaimStore } from "../claims/store.js";
import { failureFields } from "../rails/backend-failure.js";
import type { OfferReceipts } from "./offer-receipts.js";

type ClaimRow = NonNullable<Awaited<ReturnType<ClaimStore["get"]>>>;

/** The board version's commitment recorded with a claim's delivery, if any. */
export const commitmentOf = (row: Pick<ClaimRow, "delivery">) => Delivery.safeParse(row.delivery).data?.commitment;

/** How the settlement went, as the receipt states it. */
export interface Settled {
  network: string;
  payer: string;
  transaction: string;
  asset?: string | undefined;
  /** pending: answered before its block (claims/early-answers.ts); final otherwise. */
  settlement?: "final" | "pending" | undefined;
}

/**
 * The signed receipt of a settled claim: its route, price, payer and transaction, and the
 * board version recorded as its delivery. A signing failure costs the buyer the receipt,
 * never the read: it is logged and the read is served without one.
 */
export class ClaimReceipts {
  constructor(
    private readonly receipts: OfferReceipts,
    /** The route's public URL (no query: queries are not part of what is sold). */
    private readonly routeUrl: (path: string) => string,
    private readonly log: Logger,
  ) {}

  async sign(row: ClaimRow, settled: Settled): Promise<JWSSignedReceipt | null> {
    try {
      return await this.receipts.signReceipt({ ...settled, resourceUrl: this.routeUrl(row.route), amount: row.amount, commitment: commitmentOf(row) });
    } catch (err) {
      this.log.error({ ...failureFields(err), claim: row.id }, "receipt not signed; the read is served without one");
      return null;
    }
  }
}
