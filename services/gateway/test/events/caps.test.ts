import { describe, expect, it } from "vitest";
import { StreamCaps } from "../../src/events/caps.js";

describe("StreamCaps", () => {
  it("holds each client address to its cap and the replica to its total, and takes back what closes", () => {
    const caps = new StreamCaps({ perClient: 2, total: 3 });
    expect(caps.take("a")).toBeNull();
    expect(caps.take("a")).toBeNull();
    expect(caps.take("a")).toBe("too_many_streams");
    expect(caps.take("b")).toBeNull();
    expect(caps.take("c")).toBe("streams_at_capacity");
    // A client at its own cap hears that first, even on a full replica.
    expect(caps.take("a")).toBe("too_many_streams");
    caps.give("a");
    expect(caps.take("c")).toBeNull();
    expect(caps.take("a")).toBe("streams_at_capacity");
    caps.give("b");
    caps.give("c");
    expect(caps.take("b")).toBeNull();
    expect(caps.take("b")).toBeNull();
  });
});
