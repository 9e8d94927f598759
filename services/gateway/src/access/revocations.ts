import { KEY_RETIRED_SUBJECT, KeyRetiredEvent, LICENSE_REVOKED_SUBJECT, LicenseRevokedEvent } from "@board/proto";
import type { Logger, NatsConnection } from "@board/service-kit";
import type { ResolvedPrincipals } from "./resolved-principals.js";

const decoder = new TextDecoder();

/**
 * Follows identity's licence revocations and key retirements: each drops this replica's kept
 * principals of that licence (its key and its bearers) or that key's owner, so the next read
 * asks identity, which refuses it. Core NATS, at most once: a missed announcement is bounded by
 * the cache's own lifetime. Returns the stop.
 */
export function followRevocations(nc: NatsConnection, log: Logger, principals: Pick<ResolvedPrincipals, "forgetLicense" | "forgetPrincipal">): () => void {
  const revoked = nc.subscribe(LICENSE_REVOKED_SUBJECT, {
    callback: (err, msg) => {
      if (err) return log.error({ reason: "subscription_refused", subject: LICENSE_REVOKED_SUBJECT }, "license revocations not followed; the cache's lifetime bounds them");
      const event = LicenseRevokedEvent.safeParse(safeJson(msg.data));
      if (event.success) principals.forgetLicense(event.data.license_id);
      else log.warn({ subject: LICENSE_REVOKED_SUBJECT }, "a revocation event that fails its schema; ignored");
    },
  });
  const retired = nc.subscribe(KEY_RETIRED_SUBJECT, {
    callback: (err, msg) => {
      if (err) return log.error({ reason: "subscription_refused", subject: KEY_RETIRED_SUBJECT }, "key retirements not followed; the cache's lifetime bounds them");
      const event = KeyRetiredEvent.safeParse(safeJson(msg.data));
      if (event.success) principals.forgetPrincipal(event.data.principal_id);
      else log.warn({ subject: KEY_RETIRED_SUBJECT }, "a key retirement event that fails its schema; ignored");
    },
  });
  return () => {
    revoked.unsubscribe();
    retired.unsubscribe();
  };
}

function safeJson(data: Uint8Array): unknown {
  try {
    return JSON.parse(decoder.decode(data));
  } catch {
    return null;
  }
}
