import { parseEnv } from "@board/service-kit";
import { describe, expect, it } from "vitest";
import { IdentityEnv, LicenseCliEnv } from "../src/env.js";

const secret = "s".repeat(32);

describe("IdentityEnv", () => {
  it("requires IDENTITY_SECRET of at least 32 characters, naming the variable and never the value", () => {
    expect(() => parseEnv(IdentityEnv, {}, "identity")).toThrow(/IDENTITY_SECRET: is required/);
    const short = "tooshort-secret-value";
    let message = "";
    try {
      parseEnv(IdentityEnv, { IDENTITY_SECRET: short }, "identity");
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toContain("IDENTITY_SECRET: must be at least 32 characters");
    expect(message).not.toContain(short);
  });

  it("defaults the public URL and the OAuth rotation", () => {
    const env = parseEnv(IdentityEnv, { IDENTITY_SECRET: secret }, "identity");
    expect(env).toMatchObject({ PUBLIC_BASE_URL: "http://localhost:8080", OAUTH_ROTATE_AFTER_DAYS: 30, OAUTH_PUBLISH_LEAD_SECONDS: 900, HEALTH_PORT: 9103 });
  });

  it("refuses a non-http public URL and a publish lead as long as the rotation", () => {
    expect(() => parseEnv(IdentityEnv, { IDENTITY_SECRET: secret, PUBLIC_BASE_URL: "ftp://x" }, "identity")).toThrow(/PUBLIC_BASE_URL: must be an http\(s\) URL/);
    expect(() =>
      parseEnv(IdentityEnv, { IDENTITY_SECRET: secret, OAUTH_ROTATE_AFTER_DAYS: "1", OAUTH_PUBLISH_LEAD_SECONDS: "86400" }, "identity"),
    ).toThrow(/OAUTH_PUBLISH_LEAD_SECONDS: must be shorter/);
  });

  it("LicenseCliEnv needs only NATS_URL", () => {
    expect(LicenseCliEnv.parse({})).toEqual({ NATS_URL: "nats://127.0.0.1:4222" });
  });

  it("LicenseCliEnv takes the operator's seed or its file, not both", () => {
    const seed = `SU${"A".repeat(56)}`;
    expect(LicenseCliEnv.parse({ NATS_NKEY_SEED: seed }).NATS_NKEY_SEED).toBe(seed);
    expect(LicenseCliEnv.safeParse({ NATS_NKEY_SEED: "not-a-seed" }).success).toBe(false);
    expect(LicenseCliEnv.safeParse({ NATS_NKEY_SEED: seed, NATS_NKEY_SEED_FILE: "/x" }).success).toBe(false);
  });
});
