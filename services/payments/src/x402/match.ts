import type { ErrorCode } from "@board/proto";
import type { PaymentPayload } from "@x402/core/types";
import type { PaymentPayloadV1 } from "../rails/payload.js";
import type { Offer } from "./offer-book.js";

export type Match = { ok: true; offer: Offer } | { ok: false; code: ErrorCode; detail: string };

const BATCHED = "GatewayWalletBatched";
const sameAddress = (a: string, b: string) => (a.startsWith("0x") ? a.toLowerCase() === b.toLowerCase() : a === b);
const onNetwork = (o: Offer, network: string) => o.requirement.network === network || o.rail.networkAliases.includes(network);

/**
 * Finds the offer a v2 payment was made against (its `accepted`), and when there is none,
 * says which term differs, so the client knows what to fix: network, scheme, asset, payTo,
 * amount, or the resource it paid for.
 */
export function matchV2(offers: readonly Offer[], payload: PaymentPayload, routePath: string): Match {
  const a = payload.accepted;
  const resourceUrl = payload.resource?.url;
  if (resourceUrl !== undefined) {
    let path: string | null = null;
    try {
      path = new URL(resourceUrl).pathname;
    } catch {
      path = null;
    }
    if (path !== routePath) return { ok: false, code: "payment_route_mismatch", detail: `paid for ${resourceUrl}` };
  }
  const onNet = offers.filter((o) => onNetwork(o, a.network));
  if (onNet.length === 0) {
    const schemeKnown = offers.some((o) => o.requirement.scheme === a.scheme);
    return schemeKnown
      ? { ok: false, code: "payment_network_mismatch", detail: `network ${a.network} is not offered` }
      : { ok: false, code: "payment_unsupported_scheme", detail: `scheme ${a.scheme} is not offered` };
  }
  const batched = a.extra?.["name"] === BATCHED;
  const kind = onNet.filter((o) => o.requirement.scheme === a.scheme && (o.requirement.extra?.["name"] === BATCHED) === batched);
  const offer = kind[0];
  if (!offer) return { ok: false, code: "payment_unsupported_scheme", detail: `scheme ${a.scheme} is not offered on ${a.network}` };
  const r = offer.requirement;
  if (!sameAddress(a.asset, r.asset)) return { ok: false, code: "payment_asset_mismatch", detail: `asset ${a.asset} is not ${r.asset}` };
  if (!sameAddress(a.payTo, r.payTo)) return { ok: false, code: "payment_pay_to_mismatch", detail: `payTo ${a.payTo} is not ${r.payTo}` };
  if (a.amount !== r.amount) return { ok: false, code: "payment_amount_mismatch", detail: `amount ${a.amount} is not ${r.amount}` };
  return { ok: true, offer };
}

/** A v1 payment names only scheme and network; its terms are checked by the facilitator against our offer. */
export function matchV1(offers: readonly Offer[], payload: PaymentPayloadV1): Match {
  const offer = offers.find((o) => o.rail.v1Network === payload.network);
  if (!offer) return { ok: false, code: "payment_network_mismatch", detail: `v1 network ${payload.network} is not offered` };
  if (offer.requirement.scheme !== payload.scheme) return { ok: false, code: "payment_unsupported_scheme", detail: `scheme ${payload.scheme} is not offered` };
  return { ok: true, offer };
}
