import { meteringRefund, type ConsumeReply, type MeterKind } from "@board/proto";
import { BusError, isBusError, request, type Logger, type NatsConnection } from "@board/service-kit";
import { consumeBatchesOf } from "./consume-batches.js";

/** A burst check may hold an anonymous read this long at most: the limiter guards, it must not slow every read. */
const BURST_TIMEOUT_MS = 250;

/** How a burst-only check that metering does not answer ends: the read passes (open), or is refused 503 (closed). */
export type BurstFailure = "open" | "closed";

/**
 * Counts a read with metering. Free-tier reads fail closed (a read that cannot be counted is
 * not served: the caller gets the bus error). Burst-only checks of keyed and paid work
 * (licensed reads, and the client address's burst in front of a credential or a payment) fail
 * closed too, after the whole bus timeout: 503 service_unavailable with Retry-After, since a
 * metering that does not answer must not open the credential lookups and payment claims the
 * burst guards. Anonymous reads without either fail open after 250 ms: free data must not go
 * dark because the abuse guard is slow, and all it costs then is a board read; the failure is
 * logged.
 */
export async function consume(nc: NatsConnection, timeoutMs: number, log: Logger, principal: string, kind: MeterKind, failure: BurstFailure = kind === "anonymous" ? "open" : "closed"): Promise<ConsumeReply> {
  if (kind === "free") return consumeBatchesOf(nc).take(principal, kind, timeoutMs);
  try {
    return await consumeBatchesOf(nc).take(principal, kind, failure === "open" ? Math.min(timeoutMs, BURST_TIMEOUT_MS) : timeoutMs);
  } catch (err) {
    if (!isBusError(err) || err.status < 500) throw err;
    if (failure === "closed") throw new BusError("service_unavailable", 503, "metering did not answer a burst check");
    warnOpen(log, err);
    return { granted: true, daily: null };
  }
}

/** The burst key of a client address (http/client-address.ts): the one bucket its anonymous, keyed and paid requests share. */
export const addressBurstKey = (address: string) => `ip:${address}`;

/** While the stack starts, metering may simply not be up yet: that is expected, not a warning. */
const START_GRACE_MS = 30_000;
const startedAt = Date.now();
let lastWarn = 0;
function warnOpen(log: Logger, err: { status: number; code: string }) {
  const now = Date.now();
  if (now - lastWarn < 60_000) return;
  lastWarn = now;
  // The reason code says what happened; a stack trace of a bus timeout says nothing more.
  const line = { status: err.status, reason: err.code };
  if (now - startedAt < START_GRACE_MS) log.info(line, "metering is not answering burst checks yet; reads pass unchecked until it does");
  else log.warn(line, "metering did not answer a burst check; reads pass unchecked until it does");
}

/** Gives back a counted read that was not served. A lost refund is logged: the count errs against the client by one. */
export async function refund(nc: NatsConnection, timeoutMs: number, log: Logger, principal: string, day: string): Promise<void> {
  try {
    await request(nc, meteringRefund, { principal, day }, { timeoutMs });
  } catch (err) {
    log.warn({ err, day }, "refund of an unserved read failed");
  }
}
