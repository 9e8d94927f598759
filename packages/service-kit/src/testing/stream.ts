import { Snapshot, SNAPSHOT_STREAM } from "@board/proto";
import type { NatsConnection } from "nats";
import { decodeSnapshotMessage } from "../snapshot-codec.js";

/** Tests run one file at a time on a shared NATS: each starts from an empty BOARD stream. */
export async function deleteSnapshotStream(nc: NatsConnection): Promise<void> {
  const jsm = await nc.jetstreamManager();
  try {
    await jsm.streams.delete(SNAPSHOT_STREAM);
  } catch (e) {
    if ((e as { code?: string }).code !== "404") throw e;
  }
}

/** Every snapshot on the BOARD stream, oldest first, parsed against the contract. */
export async function readSnapshotStream(nc: NatsConnection): Promise<Snapshot[]> {
  const jsm = await nc.jetstreamManager();
  const { state } = await jsm.streams.info(SNAPSHOT_STREAM);
  const out: Snapshot[] = [];
  for (let seq = state.first_seq; seq <= state.last_seq && state.messages > 0; seq++) {
    const m = await jsm.streams.getMessage(SNAPSHOT_STREAM, { seq });
    out.push(Snapshot.parse(JSON.parse(new TextDecoder().decode(decodeSnapshotMessage(m.data, m.header)))));
  }
  return out;
}
