import { SNAPSHOT_STREAM } from "@board/proto";
import type { NatsConnection } from "nats";

/** Tests run one file at a time on a shared NATS: each starts from an empty BOARD stream. */
export async function deleteSnapshotStream(nc: NatsConnection): Promise<void> {
  const jsm = await nc.jetstreamManager();
  try {
    await jsm.streams.delete(SNAPSHOT_STREAM);
  } catch (e) {
    if ((e as { code?: string }).code !== "404") throw e;
  }
}
