import { describe, expect, it } from "vitest";
import { baseEnv, ConfigError, DATABASE_TIMEOUT_DEFAULTS, databaseTimeouts, parseEnv } from "../src/env.js";

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

describe("databaseTimeouts", () => {
  const schema = baseEnv(9999);
  it("defaults each bound below the gateway's default bus timeout (3000 ms), the client's read timeout past the server's statement timeout", () => {
    const t = databaseTimeouts(parseEnv(schema, {}, "svc"), "svc");
    expect(t).toEqual(DATABASE_TIMEOUT_DEFAULTS);
    for (const bound of [t.statementMs, t.queryMs, t.acquireMs]) expect(bound).toBeLessThan(3000);
    expect(t.queryMs).toBeGreaterThan(t.statementMs);
  });
  it("takes each bound from the environment", () => {
    const env = parseEnv(
      schema,
      { DATABASE_STATEMENT_TIMEOUT_MS: "300", DATABASE_QUERY_TIMEOUT_MS: "800", DATABASE_ACQUIRE_TIMEOUT_MS: "400", DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: "900" },
      "svc",
    );
    expect(databaseTimeouts(env, "svc")).toEqual({ statementMs: 300, queryMs: 800, acquireMs: 400, idleInTransactionMs: 900 });
  });
  it("refuses a bound that is not a whole number of milliseconds in range", () => {
    expect(() => parseEnv(schema, { DATABASE_STATEMENT_TIMEOUT_MS: "0" }, "svc")).toThrow(/DATABASE_STATEMENT_TIMEOUT_MS/);
    expect(() => parseEnv(schema, { DATABASE_QUERY_TIMEOUT_MS: "1.5" }, "svc")).toThrow(/DATABASE_QUERY_TIMEOUT_MS/);
  });
  it("refuses a read timeout not longer than the statement timeout: the client would abandon statements the server cancels cleanly", () => {
    const env = parseEnv(schema, { DATABASE_STATEMENT_TIMEOUT_MS: "2000", DATABASE_QUERY_TIMEOUT_MS: "2000" }, "svc");
    expect(() => databaseTimeouts(env, "svc")).toThrow(ConfigError);
    expect(() => databaseTimeouts(env, "svc")).toThrow(/svc: invalid configuration\n {2}DATABASE_QUERY_TIMEOUT_MS: must be longer than DATABASE_STATEMENT_TIMEOUT_MS/);
  });
});
