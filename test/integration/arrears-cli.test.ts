import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { ArrearsClearReply, ArrearsListReply, paymentsArrearsClear, paymentsArrearsList, type BusPrincipal } from "@board/proto";
import { request } from "@board/service-kit";
import { startEvmChain, type EvmChain } from "@board/test-chains/evm";
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { x402Client } from "@x402/fetch";
import { sql } from "drizzle-orm";
import { connect } from "nats";
import type { Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { refusal, Stack } from "./harness.js";

/**
 * The operator's arrears tool (npm run arrears), run as its own process against a stack on the
 * suite's bus (authorization on): it lists the payers whose transfer failed after their read was
 * served and clears one, and no other credential may ask payments either.
 */
const stack = new Stack();
let chain: EvmChain;
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const CLI = "services/payments/src/cli/arrears.ts";
const PATH = "/api/board/regime";
const BASE = "eip155:8453";

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** The command as the npm script runs it (node --import tsx), with this principal's seed (none: no credential). */
function arrearsAs(principal: BusPrincipal | null, ...args: string[]): Promise<Run> {
  const seed = principal ? stack.natsSeeds[principal] : undefined;
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--import", "tsx", CLI, ...args],
      { cwd: ROOT, env: { NATS_URL: stack.natsUrl, ...(seed ? { NATS_NKEY_SEED: seed } : {}) }, timeout: 30_000 },
      (err, stdout, stderr) => resolve({ code: err ? Number((err as { code?: unknown }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}
const arrears = (...args: string[]) => arrearsAs("operator", ...args);

async function rows<T>(query: ReturnType<typeof sql>): Promise<T[]> {
  return ((await stack.payments!.runtime.database!.db.execute(query)) as unknown as { rows: T[] }).rows;
}
const unclearedOf = async (address: string) => rows<{ claim_id: string }>(sql`select claim_id::text from payments.losses where payer = ${address.toLowerCase()} and cleared_at is null`);

/** A payer with USDC, and a loss recorded against it as reconciliation records one (a read served, its transfer failed). */
async function payerOwing(losses: bigint[]) {
  const key = generatePrivateKey();
  const account = privateKeyToAccount(key);
  await chain.mint(account.address, 1_000_000n);
  const claims: string[] = [];
  for (const amount of losses) {
    const claimId = randomUUID();
    claims.push(claimId);
    expect(await stack.payments!.exposure.lost({ network: BASE, payer: account.address }, amount, claimId, "reverted: transfer amount exceeds balance", false)).toBe(true);
  }
  return { key, account, claims };
}

/** A payment for PATH on Base, signed by @x402/evm's own client. */
async function signedPayment(key: Hex): Promise<string> {
  const res = await fetch(`${stack.base}${PATH}`);
  const required = decodePaymentRequiredHeader(res.headers.get("payment-required")!);
  required.accepts = required.accepts.filter((a) => a.network === BASE).slice(0, 1);
  const client = x402Client.fromConfig({ schemes: [] }).register("eip155:*", new ExactEvmScheme(privateKeyToAccount(key)));
  return encodePaymentSignatureHeader(await client.createPaymentPayload(required));
}

beforeAll(async () => {
  chain = await startEvmChain({ accounts: 2 });
  await stack.start();
  await stack.startBoard();
  await stack.publishTwoDays();
  await stack.startPayments({ PAY_TO_BASE: privateKeyToAccount(generatePrivateKey()).address, BASE_RPC_URL: chain.rpcUrl, BASE_FACILITATOR_KEY: chain.accounts[0] as Hex });
  await stack.untilServing();
}, 120_000);
afterAll(async () => {
  await stack.stop();
  await chain?.stop();
});

describe("npm run arrears", () => {
  it("lists a payer in arrears with its losses, clears it with why: it owes nothing and its next payment is served", async () => {
    const { key, account, claims } = await payerOwing([5_000n, 20_000n]);
    expect(await refusal(await stack.paidGet(PATH, await signedPayment(key)))).toBe("payment_payer_in_arrears");

    const listed = await arrears("list");
    expect(listed.code, listed.stderr).toBe(0);
    const list = ArrearsListReply.parse(JSON.parse(listed.stdout));
    const entry = list.payers.find((p) => p.payer === account.address.toLowerCase());
    expect(entry).toMatchObject({ network: BASE, owed: "25000", loss_count: 2 });
    expect(entry!.losses.map((l) => [l.claim_id, l.amount, l.reason])).toEqual([
      [claims[0], "5000", "reverted: transfer amount exceeds balance"],
      [claims[1], "20000", "reverted: transfer amount exceeds balance"],
    ]);
    for (const l of entry!.losses) expect(Date.now() - Date.parse(l.detected_at)).toBeLessThan(120_000);
    expect(list.payers_owing).toBe(list.payers.length);
    expect(listed.stderr).toMatch(/in arrears; their payments are refused/);

    // The address as a wallet shows it (checksummed): the ledger's is lowercased.
    const cleared = await arrears("clear", account.address, "--why", "paid by bank transfer, ref 4411");
    expect(cleared.code, cleared.stderr).toBe(0);
    expect(ArrearsClearReply.parse(JSON.parse(cleared.stdout))).toEqual({ payer: account.address.toLowerCase(), cleared: 2 });
    expect(cleared.stderr).toContain(`Cleared 2 losses of ${account.address.toLowerCase()}: it owes nothing now`);
    expect(await stack.payments!.exposure.owed({ network: BASE, payer: account.address })).toBe(0n);
    expect(await unclearedOf(account.address)).toEqual([]);
    const kept = await rows<{ cleared_why: string }>(sql`select cleared_why from payments.losses where payer = ${account.address.toLowerCase()} and cleared_at is not null`);
    expect(kept.map((r) => r.cleared_why)).toEqual(["paid by bank transfer, ref 4411", "paid by bank transfer, ref 4411"]);

    const after = ArrearsListReply.parse(JSON.parse((await arrears("list")).stdout));
    expect(after.payers.map((p) => p.payer)).not.toContain(account.address.toLowerCase());
    expect((await stack.paidGet(PATH, await signedPayment(key))).status).toBe(200);

    // Nothing left to clear: payments says so, and the tool exits 1.
    const again = await arrears("clear", account.address, "--why", "twice");
    expect(again.code).toBe(1);
    expect(again.stdout).toBe("");
    expect(again.stderr).toContain("has no uncleared loss: nothing was cleared (see: arrears list)");
  }, 120_000);

  it("needs the operator's credential: none is refused by the bus; a service's is never heard by payments, and the debt stays", async () => {
    const { account } = await payerOwing([5_000n]);
    const none = await arrearsAs(null, "list");
    expect(none.code).toBe(1);
    expect(none.stderr).toContain("requires a credential: set NATS_NKEY_SEED_FILE");
    for (const principal of ["gateway", "payments"] as const) {
      const run = await arrearsAs(principal, "clear", account.address, "--why", "stolen");
      expect(run.code, principal).toBe(1);
      expect(run.stdout).toBe("");
      expect(run.stderr).toContain("the bus lets no one else list or clear arrears");
    }
    // Asked directly on the gateway's credential: the server refuses the publish, payments never answers.
    const gateway = await connect(stack.busOptions("gateway"));
    try {
      await expect(request(gateway, paymentsArrearsList, {}, { timeoutMs: 500 })).rejects.toMatchObject({ code: "upstream_timeout" });
      await expect(request(gateway, paymentsArrearsClear, { payer: account.address, why: "stolen" }, { timeoutMs: 500 })).rejects.toMatchObject({ code: "upstream_timeout" });
    } finally {
      await gateway.close();
    }
    expect(await unclearedOf(account.address)).toHaveLength(1);
    expect(await stack.payments!.exposure.owed({ network: BASE, payer: account.address })).toBe(5_000n);
  }, 120_000);

  it("exits 2 with the usage on bad arguments or configuration, touching nothing", async () => {
    const { account } = await payerOwing([5_000n]);
    for (const args of [[], ["clear", account.address], ["clear", "0xnot-an-address", "--why", "paid"], ["clear", account.address, "--why", " "], ["forgive", account.address]]) {
      const run = await arrears(...args);
      expect(run.code, args.join(" ")).toBe(2);
      expect(run.stderr).toContain("usage:");
      expect(run.stdout).toBe("");
    }
    const badSeed = await new Promise<Run>((resolve) =>
      execFile(process.execPath, ["--import", "tsx", CLI, "list"], { cwd: ROOT, env: { NATS_URL: stack.natsUrl, NATS_NKEY_SEED: "not-a-seed" }, timeout: 30_000 }, (err, stdout, stderr) =>
        resolve({ code: err ? Number((err as { code?: unknown }).code ?? 1) : 0, stdout, stderr }),
      ),
    );
    expect(badSeed.code).toBe(2);
    expect(badSeed.stderr).toContain("NATS_NKEY_SEED");
    expect(await unclearedOf(account.address)).toHaveLength(1);
    // Six CLI starts (tsx transpiles each): several seconds apiece on a loaded two-core machine.
  }, 120_000);

  it("exits 1 with a clear message when payments does not answer", async () => {
    await stack.stopPayments();
    const run = await arrears("list");
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("payments is not answering");
  }, 60_000);
});
