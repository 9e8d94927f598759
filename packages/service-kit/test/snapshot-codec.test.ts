import { createHash } from "node:crypto";
import { headers as natsHeaders } from "nats";
import { describe, expect, it } from "vitest";
import { decodeSnapshotMessage, encodeSnapshotMessage, SNAPSHOT_ENCODING_HEADER } from "../src/snapshot-codec.js";
import { fixtureSnapshot } from "../src/testing/index.js";

const json = Buffer.from(JSON.stringify(fixtureSnapshot({ asofDaily: "2026-11-20", computedAt: "2026-11-20T09:55:00-08:00", seed: 2, intraday: true })));
const sha = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");

describe("snapshot messages on the bus", () => {
  it("carry the JSON gzipped, said in a header, and give back the very bytes (so the same hash)", () => {
    const message = encodeSnapshotMessage(json);
    expect(message.headers.get(SNAPSHOT_ENCODING_HEADER)).toBe("gzip");
    expect(message.data.length).toBeLessThan(json.length / 4);
    const back = decodeSnapshotMessage(message.data, message.headers);
    expect(Buffer.from(back).equals(json)).toBe(true);
    expect(sha(back)).toBe(sha(json));
  });

  it("read a plain message (no header, as every snapshot was before) as it is", () => {
    expect(decodeSnapshotMessage(json, undefined)).toBe(json);
    expect(decodeSnapshotMessage(json, natsHeaders())).toBe(json);
  });

  it("refuse an encoding they do not know, and gzip bytes that are not gzip", () => {
    const h = natsHeaders();
    h.set(SNAPSHOT_ENCODING_HEADER, "br");
    expect(() => decodeSnapshotMessage(json, h)).toThrow(/br/);
    h.set(SNAPSHOT_ENCODING_HEADER, "gzip");
    expect(() => decodeSnapshotMessage(json, h)).toThrow();
  });
});
