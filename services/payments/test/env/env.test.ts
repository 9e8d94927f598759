import { randomBytes } from "node:crypto";
import { parseEnv } from "@board/service-kit";
import { describe, expect, it } from "vitest";
import { PaymentsEnv } from "../../src/env.js";

const PAY_TO_BASE = `0x${"1".repeat(40)}`;
const RECEIPT_SECRET = randomBytes(32).toString("base64url");
const base = { PAY_TO_BASE, BASE_RPC_URL: "http://127.0.0.1:8545", BASE_FACILITATOR_KEY: `0x${"2".repeat(64)}`, RECEIPT_SECRET };
const MESSAGE = "must be base64 or base64url text that decodes to at least 32 bytes";

/** The configuration error's text, or null when `env` is accepted. */
function refusal(env: Record<string, string>): string | null {
  try {
    parseEnv(PaymentsEnv, env, "payments");
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}

describe("MPP_SECRET_KEY: base64 or base64url text that decodes to at least 32 bytes", () => {
  const withSecret = (secret: string) => refusal({ ...base, MPP_SECRET_KEY: secret });

  it("accepts 32 random bytes in every spelling a generator gives", () => {
    const bytes = randomBytes(32);
    expect(withSecret(bytes.toString("base64url"))).toBeNull(); // 43 characters, no padding
    expect(withSecret(bytes.toString("base64"))).toBeNull(); // 44 characters, one "=" (openssl rand -base64 32)
    expect(withSecret(randomBytes(32).toString("hex"))).toBeNull(); // 64 hex digits are base64 text of 48 bytes
    expect(withSecret(randomBytes(64).toString("base64url"))).toBeNull();
  });

  it("draws the line at 32 decoded bytes: 43 characters pass, 42 do not, with the message that says so", () => {
    const text = randomBytes(33).toString("base64url"); // 44 characters
    expect(withSecret(text.slice(0, 43))).toBeNull();
    const refused = withSecret(text.slice(0, 42)); // decodes to 31 bytes
    expect(refused).toContain(`MPP_SECRET_KEY: ${MESSAGE}`);
    expect(withSecret(`${randomBytes(31).toString("base64")}`)).toContain(MESSAGE); // 44 characters with "=": 31 bytes
  });

  it("refuses text that is neither base64 nor base64url, and never echoes it", () => {
    const secret = `${"A".repeat(40)}!!!!`;
    const refused = withSecret(secret);
    expect(refused).toContain(MESSAGE);
    expect(refused).not.toContain(secret);
    expect(withSecret(`${"A".repeat(40)}+-_/`)).toContain(MESSAGE); // two alphabets mixed
    expect(withSecret(`${"A".repeat(46)}=`)).toContain(MESSAGE); // padding that does not end a group of 4
    expect(withSecret(`${"A".repeat(45)}`)).toContain(MESSAGE); // a last group of one character
    expect(withSecret(" ".repeat(50))).toContain(MESSAGE);
  });
});

describe("rail availability settings", () => {
  it("defaults: production, 0.5 s doubling to 30 s with a fifth of jitter, 5 s per ask", () => {
    const env = parseEnv(PaymentsEnv, {}, "payments");
    expect(env).toMatchObject({ PAYMENTS_MODE: "production", RAIL_RETRY_INITIAL_MS: 500, RAIL_RETRY_MAX_MS: 30_000, RAIL_RETRY_JITTER: 0.2, RAIL_PROBE_TIMEOUT_MS: 5_000 });
  });

  it("takes a schedule and the mode from the environment, and refuses a cap below the first wait", () => {
    const env = parseEnv(PaymentsEnv, { PAYMENTS_MODE: "development", RAIL_RETRY_INITIAL_MS: "20", RAIL_RETRY_MAX_MS: "200", RAIL_RETRY_JITTER: "0" }, "payments");
    expect(env).toMatchObject({ PAYMENTS_MODE: "development", RAIL_RETRY_INITIAL_MS: 20, RAIL_RETRY_MAX_MS: 200, RAIL_RETRY_JITTER: 0 });
    expect(refusal({ RAIL_RETRY_INITIAL_MS: "1000", RAIL_RETRY_MAX_MS: "999" })).toContain("RAIL_RETRY_MAX_MS: must be at least RAIL_RETRY_INITIAL_MS");
    expect(refusal({ RAIL_RETRY_JITTER: "1.5" })).toContain("RAIL_RETRY_JITTER");
    expect(refusal({ PAYMENTS_MODE: "staging" })).toContain("PAYMENTS_MODE");
  });

  it("still fails fast on a malformed rail setting: only an unreachable backend is waited out", () => {
    expect(refusal({ ...base, CIRCLE_GATEWAY_URL: "not a url" })).toContain("CIRCLE_GATEWAY_URL: must be an http(s) URL");
    expect(refusal({ ...base, BASE_FACILITATOR_KEY: "0x12" })).toContain("BASE_FACILITATOR_KEY");
  });
});

describe("RECEIPT_SECRET: required once anything is sold", () => {
  it("a configured rail without it is refused, naming the variable and why; without a rail it may be absent", () => {
    const { RECEIPT_SECRET: _secret, ...withoutSecret } = base;
    expect(refusal(withoutSecret)).toContain("RECEIPT_SECRET: is required when a rail is configured");
    expect(refusal({})).toBeNull();
    expect(refusal({ ...base, RECEIPT_SECRET: "short" })).toContain("RECEIPT_SECRET: must be at least 32 characters");
    expect(refusal({ ...base, RECEIPT_SECRET: "short" })).not.toMatch(/\bshort\b/);
  });
});
