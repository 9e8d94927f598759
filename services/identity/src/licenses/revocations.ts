import { LICENSE_REVOKED_SUBJECT, LicenseRevokedEvent } from "@board/proto";
import type { Logger, NatsConnection } from "@board/service-kit";
import type { Licenses } from "./licenses.js";

const decoder = new TextDecoder();

/**
 * Tells every identity and gateway replica that a license was revoked, once it is stored.
 * Core NATS, at most once: a replica that misses it still stops the license when its cache
 * entry ends (LICENSE_REVOCATION_BOUND_SECONDS).
 */
export function announceRevocation(nc: NatsConnection, log: Logger, event: LicenseRevokedEvent): void {
  try {
    nc.publish(LICENSE_REVOKED_SUBJECT, JSON.stringify(LicenseRevokedEvent.parse(event)));
  } catch (err) {
    // Stored either way: every cache stops it within the bound.
    log.error({ reason: "revocation_not_announced", err: err instanceof Error ? err.message : String(err) }, "license revocation not announced");
  }
}

/** Drops this replica's verified entries of each license another replica (or this one) revokes. Returns the stop. */
export function followRevocations(nc: NatsConnection, log: Logger, licenses: Pick<Licenses, "forget">): () => void {
  const sub = nc.subscribe(LICENSE_REVOKED_SUBJECT, {
    callback: (err, msg) => {
      if (err) return log.error({ reason: "subscription_refused", subject: LICENSE_REVOKED_SUBJECT }, "license revocations not followed; the cache's lifetime bounds them");
      const event = LicenseRevokedEvent.safeParse(safeJson(msg.data));
      if (event.success) licenses.forget(event.data.license_id);
      else log.warn({ subject: LICENSE_REVOKED_SUBJECT }, "a revocation event that fails its schema; ignored");
    },
  });
  return () => sub.unsubscribe();
}

function safeJson(data: Uint8Array): unknown {
  try {
    return JSON.parse(decoder.decode(data));
  } catch {
    return null;
  }
}
