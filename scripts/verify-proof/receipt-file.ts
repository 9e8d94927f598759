/** A JWS compact serialization: three base64url parts. */
const JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

const decodeBase64Json = (text: string): unknown => {
  try {
    return JSON.parse(Buffer.from(text, "base64").toString("utf8"));
  } catch {
    return undefined;
  }
};

/** The signed receipt (JWS) in whatever a buyer saved: see fromValue. */
export function receiptJws(text: string): string | null {
  const trimmed = text.trim();
  if (JWS.test(trimmed)) return trimmed;
  let value: unknown;
  try {
    value = JSON.parse(trimmed);
  } catch {
    // A header value as sent: PAYMENT-RESPONSE (base64) or Payment-Receipt (base64url).
    value = decodeBase64Json(trimmed);
  }
  return fromValue(value);
}

/**
 * The JWS of: the offer-receipt object ({format: "jws", signature}), a SettleResponse
 * (PAYMENT-RESPONSE decoded: extensions["offer-receipt"].info.receipt), an MPP
 * Payment-Receipt decoded (signedReceipt), or a string holding any of them.
 */
function fromValue(value: unknown): string | null {
  if (typeof value === "string") return receiptJws(value);
  if (typeof value !== "object" || value === null) return null;
  const v = value as Record<string, unknown>;
  if (v.format === "jws" && typeof v.signature === "string" && JWS.test(v.signature)) return v.signature;
  if (typeof v.signedReceipt === "string" && JWS.test(v.signedReceipt)) return v.signedReceipt;
  const extension = (v.extensions as Record<string, { info?: { receipt?: unknown } }> | undefined)?.["offer-receipt"];
  if (extension?.info?.receipt) return fromValue(extension.info.receipt);
  return null;
}
