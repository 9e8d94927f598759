import { SERVED_READ_SUBJECT, SERVED_READS_STREAM } from "@board/proto";
import { DiscardPolicy, nanos, RetentionPolicy, StorageType, type NatsConnection, type StreamConfig } from "nats";

/**
 * The READS stream: one small message per served read, published by the gateway. Kept a
 * week (or 1 GiB, the oldest going first), far longer than metering needs to fold it in,
 * so a metering outage of days loses no count.
 */
export const SERVED_READS_STREAM_CONFIG: Partial<StreamConfig> & { name: string } = {
  name: SERVED_READS_STREAM,
  subjects: [SERVED_READ_SUBJECT],
  retention: RetentionPolicy.Limits,
  storage: StorageType.File,
  discard: DiscardPolicy.Old,
  max_age: nanos(7 * 24 * 3600 * 1000),
  max_bytes: 1024 ** 3,
  max_msg_size: 4096,
};

/** Creates the stream, or brings an existing one to this configuration. Safe from every replica. */
export async function ensureServedReadsStream(nc: NatsConnection): Promise<void> {
  const jsm = await nc.jetstreamManager();
  try {
    await jsm.streams.info(SERVED_READS_STREAM);
    await jsm.streams.update(SERVED_READS_STREAM, SERVED_READS_STREAM_CONFIG);
  } catch (e) {
    if ((e as { code?: string }).code !== "404") throw e;
    await jsm.streams.add(SERVED_READS_STREAM_CONFIG);
  }
}
