import { identityLicenseIssue, identityResolve, meteringConsume, type Credentials, type MeterKind } from "@board/proto";
import { request as busRequest, type NatsConnection } from "@board/service-kit";
import { decodePaymentRequiredHeader } from "@x402/core/http";
import { createSIWxPayload, encodeSIWxHeader, type SIWxExtension } from "@x402/extensions/sign-in-with-x";
import { request } from "undici";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { summarize, type LatencySummary } from "./stats.js";

/** The free tiers count 25 reads a day per key or address: a row's load is spread over many of them. */
export const FREE_READS_PER_PRINCIPAL = 25;

/** Runs `task` for 0..n-1 with `lanes` in flight. */
async function inLanes<T>(n: number, lanes: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = new Array<T>(n);
  let next = 0;
  await Promise.all(
    Array.from({ length: lanes }, async () => {
      while (next < n) {
        const i = next++;
        out[i] = await task(i);
      }
    }),
  );
  return out;
}

/** `n` free keys from POST /api/key. */
export async function freeKeys(base: string, n: number): Promise<string[]> {
  return inLanes(n, 16, async (i) => {
    const res = await request(`${base}/api/key`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email: `bench-${i}-${Date.now()}@example.com` }) });
    const body = (await res.body.json()) as { key?: string };
    if (res.statusCode !== 201 || !body.key) throw new Error(`POST /api/key: ${res.statusCode}`);
    return body.key;
  });
}

/** `n` SIGN-IN-WITH-X headers, each a different EVM address signing the challenge of a fresh 402 on `path`. */
export async function walletHeaders(base: string, path: string, n: number): Promise<string[]> {
  return inLanes(n, 8, async () => {
    const res = await request(`${base}${path}`);
    await res.body.dump();
    const header = res.headers["payment-required"];
    if (res.statusCode !== 402 || typeof header !== "string") throw new Error(`${path}: expected a 402 with PAYMENT-REQUIRED, got ${res.statusCode}`);
    const ext = decodePaymentRequiredHeader(header).extensions?.["sign-in-with-x"] as SIWxExtension | undefined;
    if (!ext) throw new Error(`${path}: the 402 declares no sign-in-with-x`);
    const payload = await createSIWxPayload({ ...ext.info, chainId: "eip155:8453", type: "eip191" }, privateKeyToAccount(generatePrivateKey()), `${base}${path}`);
    return encodeSIWxHeader(payload);
  });
}

/**
 * One read on each SIGN-IN-WITH-X header, before a row: the wallet signs in (its signature
 * checked, counted as a new sign-in for the address) as a wallet does once before the day's
 * reads on its session, so the row measures those reads. It spends one of each wallet's 25.
 */
export async function signIn(base: string, path: string, headers: string[]): Promise<void> {
  await inLanes(headers.length, 8, async (i) => {
    const res = await request(`${base}${path}`, { headers: { "sign-in-with-x": headers[i]! } });
    await res.body.dump();
    if (res.statusCode !== 200) throw new Error(`${path} signed in: expected 200, got ${res.statusCode}`);
  });
}

/** A scanner license issued on the bus (as the operator's CLI does) and a bearer token minted from it at /oauth/token. */
export async function licenseAndBearer(nc: NatsConnection, base: string): Promise<{ license: string; bearer: string }> {
  const { key, license } = await busRequest(nc, identityLicenseIssue, { kind: "scanner", period: "monthly", holder: "bench" }, { timeoutMs: 5000 });
  const res = await request(`${base}/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ grant_type: "client_credentials", client_id: license.client_id, client_secret: key }).toString(),
  });
  const token = (await res.body.json()) as { access_token?: string };
  if (res.statusCode !== 200 || !token.access_token) throw new Error(`POST /oauth/token: ${res.statusCode}`);
  return { license: key, bearer: `Bearer ${token.access_token}` };
}

/** `values` in round-robin order, `perValue` times each: no principal is hit twice in a row. */
export function roundRobin(values: string[], perValue: number): string[] {
  const out: string[] = [];
  for (let round = 0; round < perValue; round++) out.push(...values);
  return out;
}

export interface CheckTiming {
  check: string;
  calls: number;
  latency: LatencySummary;
}

/**
 * What each tier's check adds to a read, measured alone: `calls` sequential bus round trips of
 * identity.v1.resolve per credential and metering.v1.consume per kind, from this process.
 */
export async function timeChecks(nc: NatsConnection, creds: { freeKey: string; wallet: string; license: string; bearer: string }, calls: number): Promise<CheckTiming[]> {
  const resolves: [string, Credentials][] = [
    ["identity.resolve free key", { board_key: creds.freeKey }],
    ["identity.resolve wallet SIWX (memoized)", { siwx: creds.wallet }],
    ["identity.resolve license key", { license_key: creds.license }],
    ["identity.resolve bearer (ES256)", { bearer: creds.bearer.replace(/^Bearer /, "") }],
  ];
  const consumes: [string, MeterKind, string][] = [
    ["metering.consume free (daily upsert)", "free", "bench:free-check"],
    ["metering.consume licensed (burst only)", "licensed", "bench:licensed-check"],
    ["metering.consume anonymous (burst only)", "anonymous", "ip:bench-check"],
  ];
  const out: CheckTiming[] = [];
  const time = async (check: string, call: () => Promise<unknown>) => {
    for (let i = 0; i < 50; i++) await call();
    const samples: number[] = [];
    for (let i = 0; i < calls; i++) {
      const start = performance.now();
      await call();
      samples.push(performance.now() - start);
    }
    out.push({ check, calls, latency: summarize(Float64Array.from(samples)) });
  };
  for (const [check, credentials] of resolves) {
    await time(check, async () => {
      const reply = await busRequest(nc, identityResolve, { credentials }, { timeoutMs: 5000 });
      if (!reply.ok) throw new Error(`${check}: refused (${reply.code})`);
    });
  }
  // The daily cap would refuse after 25: each free-kind call counts against a fresh principal.
  let n = 0;
  for (const [check, kind, principal] of consumes) {
    await time(check, async () => {
      const reply = await busRequest(nc, meteringConsume, { principal: kind === "free" ? `${principal}-${n++}` : principal, kind }, { timeoutMs: 5000 });
      if (!reply.granted) throw new Error(`${check}: refused (${reply.reason})`);
    });
  }
  return out;
}
