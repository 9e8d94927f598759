import { SNAPSHOT_STREAM, SNAPSHOT_SUBJECT } from "@board/proto";
import { DiscardPolicy, nanos, RetentionPolicy, StorageType, type NatsConnection, type StreamConfig } from "nats";

/** The BOARD stream: every published snapshot, kept long enough for any replica to catch up. */
export const SNAPSHOT_STREAM_CONFIG: Partial<StreamConfig> & { name: string } = {
  name: SNAPSHOT_STREAM,
  subjects: [SNAPSHOT_SUBJECT],
  retention: RetentionPolicy.Limits,
  storage: StorageType.File,
  discard: DiscardPolicy.Old,
  max_age: nanos(30 * 24 * 3600 * 1000),
  max_msgs: 20_000,
  max_msg_size: 1024 * 1024,
  // A snapshot is published with its content hash as the message id: a retry is not a second snapshot.
  duplicate_window: nanos(10 * 60 * 1000),
};

/** Creates the stream, or brings an existing one to this configuration. Safe from every replica. */
export async function ensureSnapshotStream(nc: NatsConnection): Promise<void> {
  const jsm = await nc.jetstreamManager();
  try {
    await jsm.streams.info(SNAPSHOT_STREAM);
    await jsm.streams.update(SNAPSHOT_STREAM, SNAPSHOT_STREAM_CONFIG);
  } catch (e) {
    if ((e as { code?: string }).code !== "404") throw e;
    await jsm.streams.add(SNAPSHOT_STREAM_CONFIG);
  }
}
