import { KEY_RETIRED_SUBJECT, KeyRetiredEvent } from "@board/proto";
import type { Logger, NatsConnection } from "@board/service-kit";

/**
 * Tells every gateway replica that an owner's key was retired, once the new key is stored and
 * before it is answered: the gateways drop the principal they keep for it. Core NATS, at most
 * once: a replica that misses it stops the old key when its entry ends.
 */
export function announceKeyRetired(nc: NatsConnection, log: Logger, principalId: string): void {
  try {
    nc.publish(KEY_RETIRED_SUBJECT, JSON.stringify(KeyRetiredEvent.parse({ principal_id: principalId })));
  } catch (err) {
    // Retired either way: every gateway stops the old key within its entry's lifetime.
    log.error({ reason: "key_retirement_not_announced", err: err instanceof Error ? err.message : String(err) }, "key retirement not announced");
  }
}
