import { ConfigError, parseEnv } from "@board/service-kit";
import { describe, expect, it } from "vitest";
import { ScannerEnv } from "../../src/env.js";
import { CsvProvider } from "../../src/market/csv.js";
import { createProvider } from "../../src/market/select.js";
import { MarketSimulator } from "../../src/market/simulator.js";
import { AlpacaProvider } from "../../src/market/alpaca.js";
import { PolygonProvider } from "../../src/market/vendor.js";
import { loadUniverse } from "../../src/universe.js";

const parse = (source: Record<string, string>) => parseEnv(ScannerEnv, source, "scanner-ingest");

function messageOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error("expected a configuration error");
}

describe("ScannerEnv market data settings", () => {
  it("defaults to the simulator and the free-tier vendor settings", () => {
    const env = parse({});
    expect(env.MARKET_DATA_PROVIDER).toBe("simulator");
    expect(env.VENDOR_BASE_URL).toBe("https://api.polygon.io");
    expect(env.VENDOR_PLAN).toBe("basic");
    // Unset: the provider takes the plan's limit (5 on basic, see createProvider).
    expect(env.VENDOR_REQUESTS_PER_MINUTE).toBeUndefined();
    expect(env.VENDOR_TIMEOUT_MS).toBe(10_000);
    expect(env.CSV_DIR).toBeUndefined();
    expect(env.VENDOR_API_KEY).toBeUndefined();
  });

  it("refuses vendor without VENDOR_API_KEY, naming it", () => {
    const msg = messageOf(() => parse({ MARKET_DATA_PROVIDER: "vendor" }));
    expect(msg).toContain("scanner-ingest: invalid configuration");
    expect(msg).toMatch(/VENDOR_API_KEY: required when MARKET_DATA_PROVIDER=vendor/);
    expect(messageOf(() => parse({ MARKET_DATA_PROVIDER: "vendor", VENDOR_API_KEY: "  " }))).toContain("VENDOR_API_KEY");
  });

  it("refuses csv without CSV_DIR, naming it", () => {
    expect(messageOf(() => parse({ MARKET_DATA_PROVIDER: "csv" }))).toMatch(/CSV_DIR: required when MARKET_DATA_PROVIDER=csv/);
  });

  it("refuses an unknown provider and bad vendor numbers", () => {
    expect(messageOf(() => parse({ MARKET_DATA_PROVIDER: "yahoo" }))).toContain("MARKET_DATA_PROVIDER");
    expect(messageOf(() => parse({ VENDOR_REQUESTS_PER_MINUTE: "0" }))).toContain("VENDOR_REQUESTS_PER_MINUTE");
    expect(messageOf(() => parse({ VENDOR_TIMEOUT_MS: "soon" }))).toContain("VENDOR_TIMEOUT_MS");
    expect(messageOf(() => parse({ VENDOR_BASE_URL: "not a url" }))).toContain("VENDOR_BASE_URL");
  });

  it("accepts a complete vendor configuration", () => {
    const env = parse({ MARKET_DATA_PROVIDER: "vendor", VENDOR_API_KEY: "k", VENDOR_REQUESTS_PER_MINUTE: "100", VENDOR_TIMEOUT_MS: "5000" });
    expect(env).toMatchObject({ MARKET_DATA_PROVIDER: "vendor", VENDOR_API_KEY: "k", VENDOR_REQUESTS_PER_MINUTE: 100, VENDOR_TIMEOUT_MS: 5000 });
  });
});

describe("createProvider", () => {
  const universe = loadUniverse();

  it("picks the provider the configuration names", () => {
    const sim = createProvider(parse({ SIMULATOR_SEED: "7" }), universe);
    expect(sim).toBeInstanceOf(MarketSimulator);
    expect((sim as MarketSimulator).seed).toBe(7);

    const csv = createProvider(parse({ MARKET_DATA_PROVIDER: "csv", CSV_DIR: "/tmp/bars" }), universe);
    expect(csv).toBeInstanceOf(CsvProvider);
    expect(csv.info.name).toBe("csv");

    const vendor = createProvider(parse({ MARKET_DATA_PROVIDER: "vendor", VENDOR_API_KEY: "secret-key" }), universe);
    expect(vendor).toBeInstanceOf(PolygonProvider);
    expect(vendor.info.name).toBe("vendor");
    expect(vendor.info.detail).not.toContain("secret-key");
    // The free tier by default: end-of-day prices, so no intraday board.
    expect(vendor.info).toMatchObject({ vendor: "polygon", feed: "basic", delay: "end_of_day" });
    expect(vendor.intraday).toBe(false);
    vendor.close?.();

    const paid = createProvider(parse({ MARKET_DATA_PROVIDER: "vendor", VENDOR_API_KEY: "k", VENDOR_PLAN: "starter" }), universe);
    expect(paid.info).toMatchObject({ vendor: "polygon", feed: "starter", delay: "delayed_15m" });
    expect(paid.intraday).toBe(true);
    paid.close?.();
    const advanced = createProvider(parse({ MARKET_DATA_PROVIDER: "vendor", VENDOR_API_KEY: "k", VENDOR_PLAN: "advanced" }), universe);
    expect(advanced.info.delay).toBe("real_time");
    advanced.close?.();
    expect(() => parse({ VENDOR_PLAN: "platinum" })).toThrow(/VENDOR_PLAN/);
  });

  it("picks Alpaca with MARKET_DATA_VENDOR=alpaca, its feed saying the delay; refuses half a key", () => {
    const alpaca = createProvider(parse({ MARKET_DATA_PROVIDER: "vendor", MARKET_DATA_VENDOR: "alpaca", APCA_API_KEY_ID: "id", APCA_API_SECRET_KEY: "secret", ALPACA_FEED: "delayed_sip" }), universe);
    expect(alpaca).toBeInstanceOf(AlpacaProvider);
    expect(alpaca.info).toMatchObject({ name: "vendor", vendor: "alpaca", feed: "delayed_sip", delay: "delayed_15m" });
    expect(JSON.stringify(alpaca.info)).not.toMatch(/secret/);
    alpaca.close?.();
    // Polygon's key is not asked for Alpaca; half an Alpaca key is refused, naming the other half.
    expect(messageOf(() => parse({ MARKET_DATA_PROVIDER: "vendor", MARKET_DATA_VENDOR: "alpaca", APCA_API_KEY_ID: "id" }))).toContain("APCA_API_SECRET_KEY");
    expect(messageOf(() => parse({ MARKET_DATA_VENDOR: "yahoo" }))).toContain("MARKET_DATA_VENDOR");
  });

  it("replays recorded responses when MARKET_DATA_REPLAY_DIR is set (no key needed), labelled recorded; record and replay together are refused", () => {
    const replayed = createProvider(parse({ MARKET_DATA_PROVIDER: "vendor", MARKET_DATA_REPLAY_DIR: "/tmp/recordings", VENDOR_PLAN: "starter" }), universe);
    expect(replayed.info).toMatchObject({ vendor: "polygon", delay: "recorded" });
    replayed.close?.();
    expect(messageOf(() => parse({ MARKET_DATA_PROVIDER: "vendor", VENDOR_API_KEY: "k", MARKET_DATA_RECORD_DIR: "/a", MARKET_DATA_REPLAY_DIR: "/b" }))).toContain("record or replay");
    expect(messageOf(() => parse({ MARKET_DATA_REPLAY_DIR: "/b" }))).toContain("MARKET_DATA_PROVIDER=vendor");
  });
});
