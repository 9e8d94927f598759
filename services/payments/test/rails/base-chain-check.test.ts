import { createLogger } from "@board/service-kit";
import { BASE_USDC_ADDRESS, MULTICALL3_ADDRESS, startEvmChain, type EvmChain, type StartEvmChainOptions } from "@board/test-chains/evm";
import { domainSeparator, getAddress, parseEther, type Address, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, describe, expect, it } from "vitest";
import { RailCheckFailed } from "../../src/rails/backend-failure.js";
import { baseRailCheck, domainMatches, judgeBaseChain, readBaseChain, type BaseChainNeeds } from "../../src/rails/base-chain-check.js";
import { baseReader } from "../../src/rails/base-exact.js";
import { batchGasLimit } from "../../src/settlement/base-batch-chain.js";
import { SINGLE_TRANSFER_GAS } from "../../src/settlement/base-single-chain.js";
import { FacilitatorGas, gasLevel, settlementCost } from "../../src/settlement/facilitator-gas.js";

// The Base rail's check against real local chains: the one Base is, and those a misconfigured
// BASE_RPC_URL may serve (another chain id, no Multicall3, a token in another EIP-712 domain),
// each asked with the nine calls of one check.

const FLOOR = parseEther("1");
const chains: EvmChain[] = [];
afterAll(async () => {
  await Promise.all(chains.map((c) => c.stop()));
});

/** A chain whose JSON-RPC calls are counted by method. */
async function chainWith(opts: StartEvmChainOptions = {}) {
  const calls: string[] = [];
  const chain = await startEvmChain({ accounts: 1, ...opts, onRequest: (m) => calls.push(m) });
  chains.push(chain);
  return { chain, calls };
}

const needsOf = (chain: EvmChain, facilitator: Address): BaseChainNeeds => ({
  chainId: 8453,
  usdc: chain.usdc,
  domain: { name: "USD Coin", version: "2", chainId: 8453, verifyingContract: chain.usdc },
  multicall3: MULTICALL3_ADDRESS,
  facilitator,
});
const funded = (chain: EvmChain) => privateKeyToAccount(chain.accounts[0] as Hex).address;
const settlementGas = (batched: boolean) => (batched ? batchGasLimit(32) : SINGLE_TRANSFER_GAS);
/** A judge of gas without a gauge: the level alone. */
const plainGas = { settlementGas, judge: (r: { balance: bigint; settlementCost: bigint }) => ({ low: "low" as const, ok: null, empty: new RailCheckFailed("facilitator_cannot_pay_fees", "empty") })[gasLevel(r.balance, r.settlementCost, FLOOR)] };

function capture(lines: Record<string, unknown>[]) {
  return createLogger("payments", "debug", "test", { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
}

describe("readBaseChain and judgeBaseChain on real chains", () => {
  it("Base as it should be: its chain id, the token in the offers' domain (by name(), version() and DOMAIN_SEPARATOR()), Multicall3, a funded facilitator: batched, nothing to warn of; nine calls", async () => {
    const { chain, calls } = await chainWith();
    calls.length = 0;
    const needs = needsOf(chain, funded(chain));
    const findings = await readBaseChain(baseReader({ rpcUrl: chain.rpcUrl }), needs);
    expect(calls.sort()).toEqual(["eth_call", "eth_call", "eth_call", "eth_call", "eth_chainId", "eth_gasPrice", "eth_getBalance", "eth_getCode", "eth_getCode"]);
    expect(findings).toMatchObject({ chainId: 8453, tokenCode: true, multicall3: true, domain: { by: "name_version", name: "USD Coin", version: "2" }, balance: 10n ** 21n });
    expect(judgeBaseChain(findings, needs, plainGas)).toMatchObject({ ok: true, settlement: "batched", warnings: [] });
  });

  it("another chain id: network_mismatch, saying both ids", async () => {
    const { chain } = await chainWith({ chainId: 31337 });
    const needs = needsOf(chain, funded(chain));
    const verdict = judgeBaseChain(await readBaseChain(baseReader({ rpcUrl: chain.rpcUrl }), needs), needs, plainGas);
    expect(verdict.ok).toBe(false);
    if (verdict.ok) return;
    expect(verdict.failure).toMatchObject({ reason: "network_mismatch", fields: { chain_id: 31337, expected_chain_id: 8453 } });
    expect(verdict.failure.message).toContain("point BASE_RPC_URL at Base");
  });

  it("no Multicall3: live, unbatched, with the warning; its cost is one transfer's gas", async () => {
    const { chain } = await chainWith({ multicall3: false });
    const needs = needsOf(chain, funded(chain));
    const findings = await readBaseChain(baseReader({ rpcUrl: chain.rpcUrl }), needs);
    expect(findings.multicall3).toBe(false);
    const verdict = judgeBaseChain(findings, needs, plainGas);
    expect(verdict).toMatchObject({ ok: true, settlement: "unbatched", warnings: ["multicall3_missing"], gas: { settlementCost: settlementCost(SINGLE_TRANSFER_GAS, findings.gasPrice) } });
  });

  it("a token signing in another domain, reported by eip712Domain(): token_domain_mismatch, with what it reports and what the offers say", async () => {
    const { chain } = await chainWith({ usdcDomain: { name: "USDC", version: "2" } });
    const needs = needsOf(chain, funded(chain));
    const findings = await readBaseChain(baseReader({ rpcUrl: chain.rpcUrl }), needs);
    expect(findings.domain).toEqual({ by: "eip712Domain", name: "USDC", version: "2", chainId: 8453, verifyingContract: BASE_USDC_ADDRESS, salt: false });
    const verdict = judgeBaseChain(findings, needs, plainGas);
    expect(verdict).toMatchObject({
      ok: false,
      failure: { reason: "token_domain_mismatch", fields: { by: "eip712Domain", token_name: "USDC", token_version: "2", offer_name: "USD Coin", offer_version: "2" } },
    });
  });

  it("a token reporting the offers' domain by eip712Domain() passes", async () => {
    const { chain } = await chainWith({ usdcDomain: { name: "USD Coin", version: "2" } });
    const needs = needsOf(chain, funded(chain));
    const findings = await readBaseChain(baseReader({ rpcUrl: chain.rpcUrl }), needs);
    expect(findings.domain?.by).toBe("eip712Domain");
    expect(judgeBaseChain(findings, needs, plainGas)).toMatchObject({ ok: true, settlement: "batched" });
  });

  it("no token at the configured address (BASE_USDC_ADDRESS pointing at nothing): asset_missing", async () => {
    const { chain } = await chainWith();
    const nowhere = privateKeyToAccount(generatePrivateKey()).address;
    const needs = { ...needsOf(chain, funded(chain)), usdc: nowhere, domain: { ...needsOf(chain, funded(chain)).domain, verifyingContract: nowhere } };
    const findings = await readBaseChain(baseReader({ rpcUrl: chain.rpcUrl }), needs);
    expect(findings).toMatchObject({ tokenCode: false, domain: null });
    expect(judgeBaseChain(findings, needs, plainGas)).toMatchObject({ ok: false, failure: { reason: "asset_missing", fields: { usdc: nowhere } } });
  });

  it("a facilitator without ETH cannot pay for one batch (facilitator_cannot_pay_fees); one below the floor is warned", async () => {
    const { chain } = await chainWith();
    const broke = privateKeyToAccount(generatePrivateKey()).address;
    const needs = needsOf(chain, broke);
    const findings = await readBaseChain(baseReader({ rpcUrl: chain.rpcUrl }), needs);
    expect(findings.balance).toBe(0n);
    expect(judgeBaseChain(findings, needs, plainGas)).toMatchObject({ ok: false, failure: { reason: "facilitator_cannot_pay_fees" } });
    // Enough for a batch (gas limit x 1.2 x gas price), under the floor.
    const low = { ...findings, balance: settlementCost(batchGasLimit(32), findings.gasPrice) * 2n };
    expect(low.balance).toBeLessThan(FLOOR);
    expect(judgeBaseChain(low, needs, plainGas)).toMatchObject({ ok: true, warnings: ["facilitator_balance_low"] });
  });
});

describe("domainMatches", () => {
  const offered = { name: "USD Coin", version: "2", chainId: 8453, verifyingContract: getAddress(BASE_USDC_ADDRESS) };

  it("by name and version, holds the token's DOMAIN_SEPARATOR to the offers' domain (its chain id and contract as it hashes them)", () => {
    expect(domainMatches({ by: "name_version", name: "USD Coin", version: "2", separator: domainSeparator({ domain: offered }) }, offered)).toBe(true);
    // No DOMAIN_SEPARATOR(): name and version decide.
    expect(domainMatches({ by: "name_version", name: "USD Coin", version: "2", separator: null }, offered)).toBe(true);
    // A separator cached for another chain (FiatToken v2.0 on a fork), or another version.
    expect(domainMatches({ by: "name_version", name: "USD Coin", version: "2", separator: domainSeparator({ domain: { ...offered, chainId: 1 } }) }, offered)).toBe(false);
    expect(domainMatches({ by: "name_version", name: "USD Coin", version: "1", separator: null }, offered)).toBe(false);
  });

  it("by eip712Domain(), field by field; a salt or a missing field is another domain", () => {
    const reported = { by: "eip712Domain" as const, name: "USD Coin", version: "2", chainId: 8453, verifyingContract: offered.verifyingContract, salt: false };
    expect(domainMatches(reported, offered)).toBe(true);
    expect(domainMatches({ ...reported, salt: true }, offered)).toBe(false);
    expect(domainMatches({ ...reported, chainId: null }, offered)).toBe(false);
    expect(domainMatches({ ...reported, verifyingContract: MULTICALL3_ADDRESS }, offered)).toBe(false);
  });
});

describe("baseRailCheck", () => {
  it("Base and MPP asking at once share one reading; the settlement route is told once, the unbatched one with a warning line; the gauge is set", async () => {
    const { chain, calls } = await chainWith({ multicall3: false });
    const lines: Record<string, unknown>[] = [];
    const log = capture(lines);
    const needs = needsOf(chain, funded(chain));
    const reader = baseReader({ rpcUrl: chain.rpcUrl });
    const gauge: bigint[] = [];
    const gas = new FacilitatorGas({
      network: "eip155:8453",
      facilitator: needs.facilitator,
      floor: FLOOR,
      log,
      gauge: (_n, wei) => gauge.push(wei),
      read: () => Promise.reject(new Error("not asked here")),
    });
    const routes: string[] = [];
    const check = baseRailCheck({ reader, needs, gas, settlementGas, log, onSettlement: (s) => routes.push(s) });
    calls.length = 0;
    const [base, mpp] = await Promise.all([check(), check()]);
    expect(calls).toHaveLength(9);
    expect(base).toEqual({ settlement: "unbatched", warnings: ["multicall3_missing"] });
    expect(mpp).toEqual(base);
    expect(routes).toEqual(["unbatched"]);
    expect(gauge).toEqual([10n ** 21n]);
    expect(lines.filter((l) => l["warning"] === "multicall3_missing")).toMatchObject([{ level: 40, settlement: "unbatched", multicall3: MULTICALL3_ADDRESS }]);
    // Asked again (the rail came back): nothing new to route or say.
    await check();
    expect(routes).toEqual(["unbatched"]);
    expect(lines.filter((l) => l["warning"] === "multicall3_missing")).toHaveLength(1);
  });

  it("a failed check rejects with RailCheckFailed and routes nothing", async () => {
    const { chain } = await chainWith({ chainId: 84532 });
    const needs = needsOf(chain, funded(chain));
    const log = capture([]);
    const gas = new FacilitatorGas({ network: "eip155:8453", facilitator: needs.facilitator, floor: FLOOR, log, read: () => Promise.reject(new Error("unused")) });
    const routes: string[] = [];
    const check = baseRailCheck({ reader: baseReader({ rpcUrl: chain.rpcUrl }), needs, gas, settlementGas, log, onSettlement: (s) => routes.push(s) });
    await expect(check()).rejects.toMatchObject({ name: "RailCheckFailed", reason: "network_mismatch", fields: { chain_id: 84532 } });
    expect(routes).toEqual([]);
  });

  it("a node that does not answer is the node's failure, not a check's reason", async () => {
    const needs: BaseChainNeeds = { chainId: 8453, usdc: BASE_USDC_ADDRESS, domain: { name: "USD Coin", version: "2", chainId: 8453, verifyingContract: BASE_USDC_ADDRESS }, multicall3: MULTICALL3_ADDRESS, facilitator: MULTICALL3_ADDRESS };
    const err = await readBaseChain(baseReader({ rpcUrl: "http://127.0.0.1:9/" }), needs).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect(err).not.toBeInstanceOf(RailCheckFailed);
  });
});

describe("FacilitatorGas", () => {
  it("levels: empty below one settlement's cost, low below the floor; the low line is said once, and the recovery once", () => {
    const lines: Record<string, unknown>[] = [];
    const gas = new FacilitatorGas({ network: "eip155:8453", facilitator: MULTICALL3_ADDRESS, floor: 1000n, log: capture(lines), read: () => Promise.reject(new Error("unused")) });
    expect(gas.note({ balance: 5000n, settlementCost: 100n })).toEqual({ level: "ok", failure: null });
    expect(gas.note({ balance: 500n, settlementCost: 100n }).level).toBe("low");
    expect(gas.note({ balance: 400n, settlementCost: 100n }).level).toBe("low");
    const empty = gas.note({ balance: 50n, settlementCost: 100n });
    expect(empty.level).toBe("empty");
    expect(empty.failure).toMatchObject({ reason: "facilitator_cannot_pay_fees", fields: { facilitator: MULTICALL3_ADDRESS, balance_eth: "0.00000000000000005" } });
    expect(gas.note({ balance: 5000n, settlementCost: 100n }).level).toBe("ok");
    expect(lines.map((l) => [l["level"], l["warning"] ?? null])).toEqual([
      [40, "facilitator_balance_low"],
      [30, null],
    ]);
  });

  it("watch: tells each change of level as it reads it, and stops", async () => {
    let balance = 5000n;
    const gas = new FacilitatorGas({ network: "eip155:8453", facilitator: MULTICALL3_ADDRESS, floor: 1000n, log: capture([]), read: async () => ({ balance, settlementCost: 100n }) });
    gas.note({ balance, settlementCost: 100n });
    const told: string[] = [];
    const stop = gas.watch(10, (level, failure) => told.push(`${level}:${failure?.reason ?? ""}`));
    const until = async (n: number) => {
      const end = Date.now() + 2000;
      while (told.length < n && Date.now() < end) await new Promise((r) => setTimeout(r, 5));
    };
    await new Promise((r) => setTimeout(r, 40));
    expect(told).toEqual([]);
    balance = 500n;
    await until(1);
    balance = 10n;
    await until(2);
    balance = 5000n;
    await until(3);
    stop();
    expect(told).toEqual(["low:", "empty:facilitator_cannot_pay_fees", "ok:"]);
  });

  it("watch reads only while the rails it pays for are offered", async () => {
    let reads = 0;
    let offered = false;
    const gas = new FacilitatorGas({ network: "eip155:8453", facilitator: MULTICALL3_ADDRESS, floor: 1000n, log: capture([]), read: async () => (reads++, { balance: 5000n, settlementCost: 100n }) });
    const stop = gas.watch(5, () => undefined, () => offered);
    await new Promise((r) => setTimeout(r, 50));
    expect(reads).toBe(0);
    offered = true;
    const end = Date.now() + 2000;
    while (reads === 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 5));
    stop();
    expect(reads).toBeGreaterThan(0);
  });
});
