import { describe, expect, it } from "vitest";
import { baseEnv, ConfigError, databaseUrl, parseEnv } from "../src/env.js";

describe("TLS settings", () => {
  const schema = baseEnv(9999);
  it("are optional: no CA files, DATABASE_URL used as given", () => {
    const env = parseEnv(schema, { DATABASE_URL: "postgresql://u:p@db:5432/x" }, "svc");
    expect(env.NATS_TLS_CA_FILE).toBeUndefined();
    expect(env.DATABASE_TLS_CA_FILE).toBeUndefined();
    expect(databaseUrl(env, "svc")).toBe("postgresql://u:p@db:5432/x");
    expect(databaseUrl(parseEnv(schema, {}, "svc"), "svc")).toBeUndefined();
  });
  it("NATS_TLS_CA_FILE is read as a path", () => {
    expect(parseEnv(schema, { NATS_TLS_CA_FILE: "/etc/board/tls/nats-ca.crt" }, "svc").NATS_TLS_CA_FILE).toBe("/etc/board/tls/nats-ca.crt");
    expect(() => parseEnv(schema, { NATS_TLS_CA_FILE: "" }, "svc")).toThrow(/NATS_TLS_CA_FILE/);
  });
  it("DATABASE_TLS_CA_FILE makes the URL verify-full against that CA, keeping the rest (an encoded password too)", () => {
    const env = parseEnv(schema, { DATABASE_URL: "postgresql://board:p%40ss%2Fw@board-db-rw.board-prod:5432/board", DATABASE_TLS_CA_FILE: "/etc/board/tls/postgres-ca.crt" }, "svc");
    const url = new URL(databaseUrl(env, "svc") ?? "");
    expect(url.searchParams.get("sslmode")).toBe("verify-full");
    expect(url.searchParams.get("sslrootcert")).toBe("/etc/board/tls/postgres-ca.crt");
    expect(`${url.protocol}//${url.username}:${url.password}@${url.host}${url.pathname}`).toBe("postgresql://board:p%40ss%2Fw@board-db-rw.board-prod:5432/board");
  });
  it("refuses a CA with a URL that sets its own TLS mode, and a CA without a URL", () => {
    for (const q of ["sslmode=require", "sslrootcert=/x", "ssl=true"]) {
      const env = parseEnv(schema, { DATABASE_URL: `postgresql://u:p@db:5432/x?${q}`, DATABASE_TLS_CA_FILE: "/ca.crt" }, "svc");
      expect(() => databaseUrl(env, "svc")).toThrow(ConfigError);
    }
    expect(() => databaseUrl(parseEnv(schema, { DATABASE_TLS_CA_FILE: "/ca.crt" }, "svc"), "svc")).toThrow(/DATABASE_TLS_CA_FILE: set without DATABASE_URL/);
  });
  it("never echoes the URL (it holds the password) in its errors", () => {
    const env = parseEnv(schema, { DATABASE_URL: "postgresql://u:hunter2@db:5432/x?sslmode=disable", DATABASE_TLS_CA_FILE: "/ca.crt" }, "svc");
    expect(() => databaseUrl(env, "svc")).toThrow(/^(?![\s\S]*hunter2)/);
  });
});
