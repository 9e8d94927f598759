import type { RailSettlement, RailWarning } from "@board/proto";
import type { Logger } from "@board/service-kit";
import { decodeFunctionResult, domainSeparator, encodeFunctionData, getAddress, parseAbi, type Address, type Hex, type PublicClient } from "viem";
import { settlementCost, type FacilitatorGas, type GasReading } from "../settlement/facilitator-gas.js";
import { revertData } from "../settlement/base-single-chain.js";
import { RailCheckFailed } from "./backend-failure.js";
import type { RailNotes } from "./rail-watch.js";

/** An EIP-712 domain as the offers name it: what buyers sign EIP-3009 authorizations against. */
export interface TokenDomain {
  name: string;
  version: string;
  chainId: number;
  verifyingContract: Address;
}

/** What the Base rail needs of its chain. */
export interface BaseChainNeeds {
  /** The configured network's chain id (eip155:8453). */
  chainId: number;
  usdc: Address;
  /** The domain the offers tell buyers to sign (USDC_DOMAIN, this chain id, the USDC address). */
  domain: TokenDomain;
  multicall3: Address;
  facilitator: Address;
}

/**
 * The token's domain as it reports it: by EIP-5267's eip712Domain() (each field null when its
 * bit is off), or by name() and version() with DOMAIN_SEPARATOR() (FiatToken's way: it has no
 * eip712Domain()); null when it reports neither.
 */
export type ReportedDomain =
  | { by: "eip712Domain"; name: string | null; version: string | null; chainId: number | null; verifyingContract: Address | null; salt: boolean }
  | { by: "name_version"; name: string; version: string; separator: Hex | null };

/** What the chain says, asked at once: nine JSON-RPC calls, one round trip. */
export interface BaseChainFindings {
  chainId: number;
  tokenCode: boolean;
  multicall3: boolean;
  domain: ReportedDomain | null;
  balance: bigint;
  gasPrice: bigint;
}

const tokenAbi = parseAbi([
  "function eip712Domain() view returns (bytes1 fields, string name, string version, uint256 chainId, address verifyingContract, bytes32 salt, uint256[] extensions)",
  "function name() view returns (string)",
  "function version() view returns (string)",
  "function DOMAIN_SEPARATOR() view returns (bytes32)",
]);
type TokenView = "eip712Domain" | "name" | "version" | "DOMAIN_SEPARATOR";

/** eip712Domain()'s field bits (EIP-5267). */
const FIELD = { name: 1, version: 2, chainId: 4, verifyingContract: 8, salt: 16 } as const;

/** Reads what the rail needs of the chain. Throws when the node does not answer (the backend_* reasons). */
export async function readBaseChain(reader: PublicClient, needs: BaseChainNeeds): Promise<BaseChainFindings> {
  // A view the token does not have (it reverts, or answers nothing) is null; a node that does not answer throws.
  const view = async (functionName: TokenView): Promise<unknown> => {
    let data: Hex;
    try {
      data = (await reader.request({ method: "eth_call", params: [{ to: needs.usdc, data: encodeFunctionData({ abi: tokenAbi, functionName }) }, "latest"] })) as Hex;
    } catch (err) {
      if (revertData(err) !== null) return null;
      throw err;
    }
    try {
      return decodeFunctionResult({ abi: tokenAbi, functionName, data });
    } catch {
      return null;
    }
  };
  const code = (address: Address) => reader.request({ method: "eth_getCode", params: [address, "latest"] }) as Promise<Hex>;
  const [chainId, tokenCode, multicall3Code, domain5267, name, version, separator, balance, gasPrice] = await Promise.all([
    reader.request({ method: "eth_chainId" }),
    code(needs.usdc),
    code(needs.multicall3),
    view("eip712Domain"),
    view("name"),
    view("version"),
    view("DOMAIN_SEPARATOR"),
    reader.request({ method: "eth_getBalance", params: [needs.facilitator, "latest"] }),
    reader.request({ method: "eth_gasPrice" }),
  ]);
  return {
    chainId: Number(BigInt(chainId)),
    tokenCode: hasCode(tokenCode),
    multicall3: hasCode(multicall3Code),
    domain: reportedDomain(domain5267, name, version, separator),
    balance: BigInt(balance),
    gasPrice: BigInt(gasPrice),
  };
}

const hasCode = (code: Hex | null | undefined) => typeof code === "string" && code !== "0x" && code !== "0x0";

function reportedDomain(domain5267: unknown, name: unknown, version: unknown, separator: unknown): ReportedDomain | null {
  if (Array.isArray(domain5267)) {
    const [fields, n, v, chainId, verifyingContract] = domain5267 as [Hex, string, string, bigint, Address];
    const on = (bit: number) => (Number.parseInt(fields.slice(2, 4) || "0", 16) & bit) !== 0;
    return {
      by: "eip712Domain",
      name: on(FIELD.name) ? n : null,
      version: on(FIELD.version) ? v : null,
      chainId: on(FIELD.chainId) ? Number(chainId) : null,
      verifyingContract: on(FIELD.verifyingContract) ? getAddress(verifyingContract) : null,
      salt: on(FIELD.salt),
    };
  }
  if (typeof name !== "string" || typeof version !== "string") return null;
  return { by: "name_version", name, version, separator: typeof separator === "string" ? (separator as Hex) : null };
}

/**
 * Whether the token signs in the offers' domain. By eip712Domain(), field by field; by name()
 * and version(), those two and, when the token has DOMAIN_SEPARATOR(), the separator of the
 * offers' domain (so its chain id and contract as the token hashes them, not as we assume them).
 */
export function domainMatches(reported: ReportedDomain, offered: TokenDomain): boolean {
  if (reported.by === "eip712Domain")
    return (
      reported.name === offered.name &&
      reported.version === offered.version &&
      reported.chainId === offered.chainId &&
      reported.verifyingContract === getAddress(offered.verifyingContract) &&
      !reported.salt
    );
  if (reported.name !== offered.name || reported.version !== offered.version) return false;
  return reported.separator === null || reported.separator.toLowerCase() === domainSeparator({ domain: offered }).toLowerCase();
}

/** What the check concluded: how the rail settles and what limits it, or why it is down. */
export type BaseChainVerdict = { ok: true; settlement: RailSettlement; warnings: RailWarning[]; gas: GasReading } | { ok: false; failure: RailCheckFailed };

/**
 * The rail's needs, in order: its chain is the configured network, the token is there and
 * signs in the offers' domain (then the facilitator's gas is worth reading: `gas` says whether
 * it can pay for one settlement). Multicall3 missing is no failure: settled one payment per
 * transaction, and said.
 */
export function judgeBaseChain(
  f: BaseChainFindings,
  needs: BaseChainNeeds,
  gas: { settlementGas(batched: boolean): bigint; judge(reading: GasReading): RailCheckFailed | "low" | null },
): BaseChainVerdict {
  if (f.chainId !== needs.chainId)
    return fail("network_mismatch", `its RPC serves chain ${f.chainId}, not the configured network's (${needs.chainId}): point BASE_RPC_URL at Base`, {
      chain_id: f.chainId,
      expected_chain_id: needs.chainId,
    });
  if (!f.tokenCode) return fail("asset_missing", `no token contract at ${needs.usdc} (BASE_USDC_ADDRESS) on its chain`, { usdc: needs.usdc });
  const offered = { offer_name: needs.domain.name, offer_version: needs.domain.version, offer_chain_id: needs.domain.chainId };
  if (!f.domain) return fail("token_domain_mismatch", `the token at ${needs.usdc} reports no EIP-712 domain (neither eip712Domain() nor name() and version())`, { usdc: needs.usdc, ...offered });
  if (!domainMatches(f.domain, needs.domain))
    return fail("token_domain_mismatch", `the token at ${needs.usdc} signs in another EIP-712 domain than the offers tell buyers to sign: their authorizations would not verify`, {
      usdc: needs.usdc,
      by: f.domain.by,
      token_name: f.domain.name,
      token_version: f.domain.version,
      ...(f.domain.by === "eip712Domain" ? { token_chain_id: f.domain.chainId, token_verifying_contract: f.domain.verifyingContract } : { token_separator_matches: false }),
      ...offered,
    });
  const reading = { balance: f.balance, settlementCost: settlementCost(gas.settlementGas(f.multicall3), f.gasPrice) };
  const judged = gas.judge(reading);
  if (judged instanceof RailCheckFailed) return { ok: false, failure: judged };
  const warnings: RailWarning[] = [];
  if (!f.multicall3) warnings.push("multicall3_missing");
  if (judged === "low") warnings.push("facilitator_balance_low");
  return { ok: true, settlement: f.multicall3 ? "batched" : "unbatched", warnings, gas: reading };
}

const fail = (reason: RailCheckFailed["reason"], message: string, fields: RailCheckFailed["fields"]): BaseChainVerdict => ({
  ok: false,
  failure: new RailCheckFailed(reason, message, fields),
});

export interface BaseRailCheckOptions {
  reader: PublicClient;
  needs: BaseChainNeeds;
  gas: FacilitatorGas;
  /** The gas limit of one settlement transaction: a full batch, or one transfer without Multicall3. */
  settlementGas(batched: boolean): bigint;
  /** Told how settlements go from now on, when that changes (the batcher's route). */
  onSettlement(settlement: RailSettlement): void;
  log: Logger;
}

/**
 * The Base rail's check, asked when the rail is brought up (at start and each time it comes
 * back): resolves with how it settles and what limits it, or rejects with RailCheckFailed (or
 * the node's own failure). Base and MPP settle through the same account and batches: asked at
 * once, they share one reading.
 */
export function baseRailCheck(opts: BaseRailCheckOptions): () => Promise<RailNotes> {
  let running: Promise<RailNotes> | null = null;
  let settlement: RailSettlement | null = null;
  const check = async (): Promise<RailNotes> => {
    const findings = await readBaseChain(opts.reader, opts.needs);
    const verdict = judgeBaseChain(findings, opts.needs, {
      settlementGas: opts.settlementGas,
      judge: (reading) => {
        const { level, failure } = opts.gas.note(reading);
        return failure ?? (level === "low" ? "low" : null);
      },
    });
    if (!verdict.ok) throw verdict.failure;
    if (verdict.settlement !== settlement) {
      const before = settlement;
      settlement = verdict.settlement;
      opts.onSettlement(settlement);
      if (settlement === "unbatched")
        opts.log.warn(
          { network: `eip155:${opts.needs.chainId}`, multicall3: opts.needs.multicall3, settlement, warning: "multicall3_missing" },
          "no Multicall3 on the Base chain: each payment is settled by a transaction of its own (more gas per payment, no batches)",
        );
      else if (before !== null) opts.log.info({ network: `eip155:${opts.needs.chainId}`, settlement }, "Multicall3 is on the Base chain now: payments are settled in batches again");
    }
    return { settlement, warnings: verdict.warnings };
  };
  return () => (running ??= check().finally(() => (running = null)));
}
