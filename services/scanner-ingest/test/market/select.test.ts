import { ConfigError, parseEnv } from "@board/service-kit";
import { describe, expect, it } from "vitest";
import { ScannerEnv } from "../../src/env.js";
import { CsvProvider } from "../../src/market/csv.js";
import { createProvider } from "../../src/market/select.js";
import { MarketSimulator } from "../../src/market/simulator.js";
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
    expect(env.VENDOR_REQUESTS_PER_MINUTE).toBe(5);
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
  });
});
