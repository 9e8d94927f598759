import type { CommitmentRef } from "@board/proto";
import type { PaymentRequirements } from "@x402/core/types";
import {
  convertNetworkStringToCAIP2,
  createJWS,
  createOfferJWS,
  extractOfferPayload,
  OFFER_RECEIPT,
  type JWSSignedOffer,
  type JWSSignedReceipt,
  type JWSSigner,
  type ReceiptPayload,
} from "@x402/extensions/offer-receipt";
import { signEs256 } from "@board/signing-keys";
import type { ReceiptKeys } from "./receipt-keys.js";

/** The offer-receipt extension's payload schema version (x402 specs/extensions/extension-offer-and-receipt.md). */
const VERSION = 1;

/**
 * What a paid read's receipt states, beyond x402's receipt fields (network, resourceUrl,
 * payer, issuedAt, transaction): the price paid and the board version sold, by its place in
 * the proof chain, so the buyer can later show what was sold and check it against
 * /api/board/proof (`npm run verify-proof -- --receipt`).
 */
export interface BoardReceiptPayload extends ReceiptPayload {
  /** The price in the asset's base units (USDC: 6 decimals). */
  amount: string;
  asset?: string;
  /** The board version served: its content hash, commitment and commitment number (absent for a view of no snapshot). */
  contentHash?: string;
  commitment?: string;
  proofSeq?: number;
  /**
   * pending: the read was answered once its transfer was broadcast, before its block; the
   * final receipt (settlement final) replaces it once mined. Absent on receipts signed before
   * reads could be answered early: they were final.
   */
  settlement?: "final" | "pending";
}

export interface ReceiptFacts {
  resourceUrl: string;
  /** As the settlement named it; v1 names ("base") are written as CAIP-2. */
  network: string;
  payer: string;
  transaction: string;
  amount: string;
  asset?: string | undefined;
  commitment?: CommitmentRef | undefined;
  settlement?: "final" | "pending" | undefined;
}

/** The extension's entry in a SettleResponse (PAYMENT-RESPONSE) or an MCP payment response. */
export const receiptExtension = (receipt: JWSSignedReceipt) => ({ [OFFER_RECEIPT]: { info: { version: VERSION, receipt } } });

interface KeptOffer {
  offer: JWSSignedOffer;
  validUntil: number;
}

/**
 * Signs offers (each `accepts` entry of a 402) and receipts (each settled paid read) as JWS
 * (ES256), with x402's own offer-receipt code for payloads and serialization. An offer is
 * kept and reused until half its validity is gone: a 402 costs no signature most of the time.
 */
export class OfferReceipts {
  private readonly offers = new Map<string, KeptOffer>();

  constructor(
    private readonly keys: ReceiptKeys,
    private readonly now: () => number = Date.now,
  ) {}

  /** Signed offers for `requirements`, in their order; `resourceUrl` is the route's URL (queries are not part of what is sold). */
  async signOffers(resourceUrl: string, requirements: readonly PaymentRequirements[]): Promise<JWSSignedOffer[]> {
    const nowSeconds = Math.floor(this.now() / 1000);
    const signed: JWSSignedOffer[] = [];
    for (const [acceptIndex, r] of requirements.entries()) {
      const cacheKey = [resourceUrl, r.scheme, r.network, r.asset, r.payTo, r.amount, acceptIndex].join("|");
      const kept = this.offers.get(cacheKey);
      if (kept && kept.validUntil - nowSeconds > r.maxTimeoutSeconds / 2) {
        signed.push(kept.offer);
        continue;
      }
      const offer = await createOfferJWS(
        resourceUrl,
        { acceptIndex, scheme: r.scheme, network: r.network, asset: r.asset, payTo: r.payTo, amount: r.amount, offerValiditySeconds: r.maxTimeoutSeconds },
        this.signer(),
      );
      // x402's payload builder stamps validUntil from the wall clock: keep what was signed.
      this.offers.set(cacheKey, { offer, validUntil: extractOfferPayload(offer).validUntil });
      signed.push(offer);
    }
    return signed;
  }

  /** The signed receipt of a settled paid read. */
  async signReceipt(facts: ReceiptFacts): Promise<JWSSignedReceipt> {
    const payload: BoardReceiptPayload = {
      version: VERSION,
      network: convertNetworkStringToCAIP2(facts.network),
      resourceUrl: facts.resourceUrl,
      payer: facts.payer,
      issuedAt: Math.floor(this.now() / 1000),
      transaction: facts.transaction,
      amount: facts.amount,
      ...(facts.asset !== undefined && { asset: facts.asset }),
      ...(facts.commitment && { contentHash: facts.commitment.content_hash, commitment: facts.commitment.commitment, proofSeq: facts.commitment.seq }),
      settlement: facts.settlement ?? "final",
    };
    return { format: "jws", signature: await createJWS(payload, this.signer()) };
  }

  /** The key signing now, as x402's JWS signer (the key may rotate between two signatures). */
  private signer(): JWSSigner {
    const key = this.keys.signing();
    return { kid: key.kid, format: "jws", algorithm: "ES256", sign: (bytes) => Promise.resolve(signEs256(key.privateKey, bytes)) };
  }
}
