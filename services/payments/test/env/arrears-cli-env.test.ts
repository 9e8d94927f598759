import { describe, expect, it } from "vitest";
import { ArrearsCliEnv } from "../../src/env.js";

describe("ArrearsCliEnv", () => {
  it("needs only NATS_URL", () => {
    expect(ArrearsCliEnv.parse({})).toEqual({ NATS_URL: "nats://127.0.0.1:4222" });
  });

  it("takes the operator's seed or its file, not both", () => {
    const seed = `SU${"A".repeat(56)}`;
    expect(ArrearsCliEnv.parse({ NATS_NKEY_SEED: seed }).NATS_NKEY_SEED).toBe(seed);
    expect(ArrearsCliEnv.safeParse({ NATS_NKEY_SEED: "not-a-seed" }).success).toBe(false);
    expect(ArrearsCliEnv.safeParse({ NATS_NKEY_SEED: seed, NATS_NKEY_SEED_FILE: "/x" }).success).toBe(false);
  });
});
