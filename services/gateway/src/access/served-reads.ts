import { SERVED_READ_SUBJECT, type Tier } from "@board/proto";
import { publishTraced, type Logger, type NatsConnection } from "@board/service-kit";

export type ServedReads = (route: string, tier: Tier) => void;

/**
 * Records a served read: one JetStream publish after the response went out, never awaited on
 * the read path. Metering folds the stream into per-route counts in batches, so no counter
 * row is touched per read. A failed publish is logged (at most once a minute).
 */
export function servedReadsPublisher(nc: NatsConnection, log: Logger): ServedReads {
  const encoder = new TextEncoder();
  let lastWarn = 0;
  return (route, tier) => {
    const event = { route, tier, at: new Date().toISOString() };
    publishTraced(nc, SERVED_READ_SUBJECT, encoder.encode(JSON.stringify(event))).catch((err: unknown) => {
      const now = Date.now();
      if (now - lastWarn < 60_000) return;
      lastWarn = now;
      log.warn({ err }, "a served read could not be recorded; reads served may undercount");
    });
  };
}
