import { createHash } from "node:crypto";
import { SNAPSHOT_STREAM, SNAPSHOT_SUBJECT, Snapshot } from "@board/proto";
import { decodeSnapshotMessage, encodeSnapshotMessage, publishTraced, type NatsConnection } from "@board/service-kit";

/** Room kept under the bus's 1 MiB payload limit for the message (compressed), so a growing board fails a test before it fails in production. */
export const SNAPSHOT_MAX_BYTES = 768 * 1024;

export interface Published {
  hash: string;
  /** The snapshot's JSON. */
  bytes: number;
  /** The message that carried it (its JSON gzipped). */
  messageBytes: number;
  seq: number;
  duplicate: boolean;
}

/**
 * Publishes a snapshot to the BOARD stream once it passes its contract. The message id is
 * the content hash, so a retried publish is not a second snapshot.
 */
export async function publishSnapshot(nc: NatsConnection, snapshot: Snapshot): Promise<Published> {
  const checked = Snapshot.parse(snapshot);
  const bytes = new TextEncoder().encode(JSON.stringify(checked));
  const message = encodeSnapshotMessage(bytes);
  if (message.data.length > SNAPSHOT_MAX_BYTES) throw new Error(`snapshot message is ${message.data.length} bytes (gzip of ${bytes.length}), over the ${SNAPSHOT_MAX_BYTES} limit`);
  const hash = createHash("sha256").update(bytes).digest("hex");
  const ack = await publishTraced(nc, SNAPSHOT_SUBJECT, message.data, { msgID: hash, headers: message.headers });
  return { hash, bytes: bytes.length, messageBytes: message.data.length, seq: ack.seq, duplicate: ack.duplicate };
}

/** When the newest board on the stream was computed, or null when the stream holds none. */
export async function lastPublishedAt(nc: NatsConnection): Promise<Date | null> {
  const jsm = await nc.jetstreamManager();
  try {
    const m = await jsm.streams.getMessage(SNAPSHOT_STREAM, { last_by_subj: SNAPSHOT_SUBJECT });
    const parsed = Snapshot.safeParse(JSON.parse(new TextDecoder().decode(decodeSnapshotMessage(m.data, m.header))));
    return parsed.success ? new Date(parsed.data.board.computed_at) : null;
  } catch (e) {
    if ((e as { code?: string }).code === "404") return null;
    throw e;
  }
}
