import { createHash } from "node:crypto";
import { SNAPSHOT_SUBJECT, Snapshot } from "@board/proto";
import type { NatsConnection } from "@board/service-kit";

/** Room kept under the bus's 1 MiB payload limit, so a growing board fails a test before it fails in production. */
export const SNAPSHOT_MAX_BYTES = 768 * 1024;

export interface Published {
  hash: string;
  bytes: number;
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
  if (bytes.length > SNAPSHOT_MAX_BYTES) throw new Error(`snapshot is ${bytes.length} bytes, over the ${SNAPSHOT_MAX_BYTES} limit`);
  const hash = createHash("sha256").update(bytes).digest("hex");
  const ack = await nc.jetstream().publish(SNAPSHOT_SUBJECT, bytes, { msgID: hash });
  return { hash, bytes: bytes.length, seq: ack.seq, duplicate: ack.duplicate };
}
