import { meteringConsume, meteringRefund, type ConsumeReply, type MeterKind } from "@board/proto";
import { isBusError, request, type Logger, type NatsConnection } from "@board/service-kit";

/** A burst check may hold an anonymous read this long at most: the limiter guards, it must not slow every read. */
const BURST_TIMEOUT_MS = 250;

/**
 * Counts a read with metering. Free-tier reads fail closed (a read that cannot be counted is
 * not served: the caller gets the bus error). Burst-only checks (licensed, anonymous) fail
 * open when metering does not answer: the burst limit is an abuse guard, and free data and
 * paid licenses must not go dark because of it; the failure is logged.
 */
export async function consume(nc: NatsConnection, timeoutMs: number, log: Logger, principal: string, kind: MeterKind): Promise<ConsumeReply> {
  if (kind === "free") return request(nc, meteringConsume, { principal, kind }, { timeoutMs });
  try {
    return await request(nc, meteringConsume, { principal, kind }, { timeoutMs: Math.min(timeoutMs, BURST_TIMEOUT_MS) });
  } catch (err) {
    if (!isBusError(err) || err.status < 500) throw err;
    warnOpen(log, err);
    return { granted: true, daily: null };
  }
}

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
