// What a buyer holds on its rail, asked of the rail itself: USDC balanceOf on Base (viem), the
// USDC token account on Solana (JSON-RPC getTokenAccountBalance), the USDC asset holding on
// Algorand (algod's account asset API), the Circle Gateway balance (POST /v1/balances).

import { fail, networkError, ok, type Result } from "./errors.js";
import type { RailConfig } from "./pay/index.js";

export interface Balance {
  /** USDC base units. */
  amount: bigint;
  address: string;
  /** Where it was read. */
  source: string;
}

const BASE_USDC = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913";
const SOLANA_USDC_MINT = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
const TOKEN_PROGRAM = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA";
const ASSOCIATED_TOKEN_PROGRAM = "ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL";
const ALGORAND_USDC_ASA = 31566704;

/** The USDC balance of the wallet in `config`, on its rail. */
export async function balanceOf(config: RailConfig, fetchImpl: typeof globalThis.fetch = globalThis.fetch): Promise<Result<Balance>> {
  try {
    switch (config.rail) {
      case "base":
      case "mpp":
        return await evmBalance(config.privateKey, config.rpcUrl, config.usdc ?? BASE_USDC);
      case "solana":
        return await solanaBalance(config.secretKey, config.rpcUrl, fetchImpl);
      case "algorand":
        return await algorandBalance(config.mnemonic, config.algodUrl, config.algodToken ?? "", fetchImpl);
      case "batched":
        return await gatewayBalance(config.privateKey, config.gatewayUrl, fetchImpl);
    }
  } catch (err) {
    return fail("chain_error", `the balance could not be read: ${err instanceof Error ? err.message : String(err)}`);
  }
}

async function evmBalance(privateKey: `0x${string}`, rpcUrl: string | undefined, usdc: string): Promise<Result<Balance>> {
  if (!rpcUrl) return fail("chain_error", "no Base RPC URL given: the balance cannot be read");
  const { createPublicClient, http, erc20Abi } = await import("viem");
  const { privateKeyToAccount } = await import("viem/accounts");
  const address = privateKeyToAccount(privateKey).address;
  const client = createPublicClient({ transport: http(rpcUrl, { retryCount: 0 }) });
  try {
    const amount = await client.readContract({ address: usdc as `0x${string}`, abi: erc20Abi, functionName: "balanceOf", args: [address] });
    return ok({ amount, address, source: `balanceOf(${usdc}) at ${rpcUrl}` });
  } catch (err) {
    return { ok: false, error: networkError(rpcUrl, err) };
  }
}

async function solanaBalance(secretKey: string, rpcUrl: string | undefined, fetchImpl: typeof globalThis.fetch): Promise<Result<Balance>> {
  if (!rpcUrl) return fail("chain_error", "no Solana RPC URL given: the balance cannot be read");
  const kit = await import("@solana/kit");
  const signer = await kit.createKeyPairSignerFromBytes(new Uint8Array(kit.getBase58Encoder().encode(secretKey)));
  const encoder = kit.getAddressEncoder();
  const [ata] = await kit.getProgramDerivedAddress({
    programAddress: kit.address(ASSOCIATED_TOKEN_PROGRAM),
    seeds: [encoder.encode(signer.address), encoder.encode(kit.address(TOKEN_PROGRAM)), encoder.encode(kit.address(SOLANA_USDC_MINT))],
  });
  const res = await rpc(fetchImpl, rpcUrl, { jsonrpc: "2.0", id: 1, method: "getTokenAccountBalance", params: [ata] });
  if (!res.ok) return res;
  const body = res.value as { result?: { value?: { amount?: string } }; error?: { message?: string } };
  // No token account yet: nothing held.
  if (body.error) return /could not find account|Invalid param/i.test(body.error.message ?? "") ? ok({ amount: 0n, address: signer.address, source: rpcUrl }) : fail("chain_error", body.error.message ?? "RPC error");
  return ok({ amount: BigInt(body.result?.value?.amount ?? "0"), address: signer.address, source: `USDC token account ${ata} at ${rpcUrl}` });
}

async function algorandBalance(mnemonic: string, algodUrl: string, token: string, fetchImpl: typeof globalThis.fetch): Promise<Result<Balance>> {
  const algosdk = (await import("algosdk")).default;
  const address = algosdk.mnemonicToSecretKey(mnemonic.trim()).addr.toString();
  const url = `${algodUrl.replace(/\/+$/, "")}/v2/accounts/${address}/assets/${ALGORAND_USDC_ASA}`;
  let res: Response;
  try {
    res = await fetchImpl(url, { headers: { "X-Algo-API-Token": token } });
  } catch (err) {
    return { ok: false, error: networkError(url, err) };
  }
  // 404: the account has not opted in to USDC, so it holds none.
  if (res.status === 404) return ok({ amount: 0n, address, source: algodUrl });
  if (!res.ok) return fail("chain_error", `algod answered HTTP ${res.status}`);
  const body = (await res.json()) as { "asset-holding"?: { amount?: number | string } };
  return ok({ amount: BigInt(body["asset-holding"]?.amount ?? 0), address, source: `USDC (ASA ${ALGORAND_USDC_ASA}) at ${algodUrl}` });
}

async function gatewayBalance(privateKey: `0x${string}`, gatewayUrl: string | undefined, fetchImpl: typeof globalThis.fetch): Promise<Result<Balance>> {
  if (!gatewayUrl) return fail("chain_error", "no Circle Gateway URL given: the balance cannot be read");
  const { privateKeyToAccount } = await import("viem/accounts");
  const address = privateKeyToAccount(privateKey).address;
  const res = await rpc(fetchImpl, `${gatewayUrl.replace(/\/+$/, "")}/v1/balances`, { token: "USDC", sources: [{ depositor: address }] });
  if (!res.ok) return res;
  const body = res.value as { balances?: { balance?: string }[] };
  // Circle answers decimal USDC ("99.995"): back to base units.
  const total = (body.balances ?? []).reduce((sum, b) => sum + decimalToUnits(b.balance ?? "0"), 0n);
  return ok({ amount: total, address, source: `Circle Gateway balance at ${gatewayUrl}` });
}

async function rpc(fetchImpl: typeof globalThis.fetch, url: string, body: unknown): Promise<Result<unknown>> {
  let res: Response;
  try {
    res = await fetchImpl(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  } catch (err) {
    return { ok: false, error: networkError(url, err) };
  }
  if (!res.ok) return fail("chain_error", `${url} answered HTTP ${res.status}`);
  return ok(await res.json());
}

function decimalToUnits(text: string): bigint {
  const [whole = "0", frac = ""] = text.split(".");
  return BigInt(whole) * 1_000_000n + BigInt((frac + "000000").slice(0, 6));
}
