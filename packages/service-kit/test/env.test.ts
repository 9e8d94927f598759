import { describe, expect, it } from "vitest";
import { baseEnv, ConfigError, parseEnv } from "../src/env.js";

describe("parseEnv", () => {
  const schema = baseEnv(9999);
  it("applies defaults", () => {
    const env = parseEnv(schema, {}, "svc");
    expect(env.NATS_URL).toBe("nats://127.0.0.1:4222");
    expect(env.HEALTH_PORT).toBe(9999);
    expect(env.DATABASE_URL).toBeUndefined();
  });
  it("fails with every problem named, and never echoes a value", () => {
    const secret = "mysql://user:hunter2@db/x";
    let err: unknown;
    try {
      parseEnv(schema, { DATABASE_URL: secret, HEALTH_PORT: "70000", LOG_LEVEL: "loud" }, "svc");
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    const msg = (err as Error).message;
    expect(msg).toContain("DATABASE_URL");
    expect(msg).toContain("HEALTH_PORT");
    expect(msg).toContain("LOG_LEVEL");
    expect(msg).not.toContain("hunter2");
  });
});
