// Backups that restore: a running stack's database is backed up with pg_dump while its services
// write, restored with pg_restore into a fresh PostgreSQL server this test starts (initdb in a
// temporary folder, pg_ctl on a free port), and a new stack started on the restored database
// serves what the old one sold: the same proof chain, the same licence, the same claims and
// signed receipts. The restored stack keeps the old one's public origin and secrets (the
// Secrets identity-secrets and payments-secrets are not in the database; the keys they protect
// are). The production procedure (CloudNativePG's recovery) is docs/operations-restore.md; the
// checks made here are the ones it asks for. PostgreSQL's programs are required: without them
// this fails, saying what to install, and is never skipped.
import { readFileSync } from "node:fs";
import path from "node:path";
import { identityLicenseIssue, identityLicenseList, ProofView, type LicenseIssueReply } from "@board/proto";
import { request } from "@board/service-kit";
import { startEvmChain, type EvmChain } from "@board/test-chains/evm";
import { x402Client } from "@x402/core/client";
import { decodePaymentRequiredHeader, decodePaymentResponseHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import type { PaymentRequired } from "@x402/core/types";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { extractReceiptFromResponse, verifyReceiptSignatureJWS, type JWSSignedReceipt } from "@x402/extensions/offer-receipt";
import { decodeProtectedHeader } from "jose";
import pg from "pg";
import type { Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { refusal, Stack, until } from "./harness.js";
import { digestsWith, dumpDatabase, postgresTools, ScratchPostgres, tableDigests, type PostgresTools } from "./postgres-server.js";

/** Where the services keep their data: one schema each, and the migration journals. */
const SCHEMAS = ["board", "identity", "metering", "payments", "drizzle"] as const;
type Digests = Awaited<ReturnType<typeof tableDigests>>;

const original = new Stack();
let restored: Stack | null = null;
let chain: EvmChain;
let tools: PostgresTools;
let scratch: ScratchPostgres | null = null;
const payTo = privateKeyToAccount(generatePrivateKey()).address;
const started = Date.now();
const timings: Record<string, number> = {};
const lap = (what: string) => (timings[what] = Date.now() - started);

/** What the original stack sold before the backup, to be found again after the restore. */
const sold = {
  proof: null as ProofView | null,
  licence: null as LicenseIssueReply | null,
  /** An OAuth bearer minted from the licence (identity's signing keys are in its schema). */
  bearer: "",
  buyer: null as PrivateKeyAccount | null,
  /** A paid read: what it bought, with which payment, and the receipt it was answered with. */
  path: "",
  payment: "",
  bytes: Buffer.alloc(0),
  paymentResponse: "",
  receipt: null as JWSSignedReceipt | null,
  transaction: "",
  claimId: "",
};
/** Issued after the backup was taken: the restored stack must not know it. */
let licenceAfterBackup: LicenseIssueReply | null = null;
let backedUp: Digests = {};
let restoredRows: Digests = {};
let restoredUrl = "";
let originalStopped = false;

const paymentsEnv = () => ({ PAY_TO_BASE: payTo, BASE_RPC_URL: chain.rpcUrl, BASE_FACILITATOR_KEY: chain.accounts[0] as Hex });

async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/** A payment for the first offer of `path` at `stack`, signed by @x402/evm's client. */
async function signedPayment(stack: Stack, account: PrivateKeyAccount, path: string): Promise<string> {
  const res = await fetch(`${stack.base}${path}`);
  expect(res.status).toBe(402);
  const required = decodePaymentRequiredHeader(res.headers.get("payment-required")!);
  required.accepts = required.accepts.slice(0, 1);
  const client = new x402Client().register("eip155:*", new ExactEvmScheme(account));
  return encodePaymentSignatureHeader(await client.createPaymentPayload(required as PaymentRequired));
}

const proofOf = async (stack: Stack) => ProofView.parse(await (await fetch(`${stack.base}/api/board/proof`)).json());
const licenceRead = (stack: Stack, key: string) => fetch(`${stack.base}/api/board/buylist`, { headers: { "x-license-key": key } });

beforeAll(async () => {
  // The programs first: a machine without them fails here, before anything is started.
  const { server, owner } = await withClient(original.infra.databaseUrl, async (c) => {
    const version = (await c.query<{ v: string }>("select current_setting('server_version_num') as v")).rows[0]!.v;
    const user = (await c.query<{ u: string }>("select current_user as u")).rows[0]!.u;
    return { server: Math.floor(Number(version) / 10_000), owner: user };
  });
  tools = await postgresTools(server);

  chain = await startEvmChain({ accounts: 3 });
  await original.start();
  await original.startBoard();
  await original.publishTwoDays();
  await original.startPayments(paymentsEnv());
  await original.untilServing();
  lap("original stack serving");

  // Data worth restoring. The proof chain: a commitment per published board.
  await until(async () => (await proofOf(original)).total === original.twoDays.length, 20_000);
  sold.proof = await proofOf(original);
  // A licence, and a bearer minted from it.
  sold.licence = await request(original.nc, identityLicenseIssue, { kind: "scanner", period: "monthly", holder: "backup-restore test" }, { timeoutMs: 5000 });
  const licensed = await licenceRead(original, sold.licence.key);
  expect(licensed.status).toBe(200);
  await licensed.body?.cancel();
  const token = await fetch(`${original.base}/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ grant_type: "client_credentials", client_id: sold.licence.license.client_id, client_secret: sold.licence.key }).toString(),
  });
  expect(token.status).toBe(200);
  sold.bearer = ((await token.json()) as { access_token: string }).access_token;
  // A paid read: its claim (settled, on chain) and its signed receipt.
  sold.buyer = privateKeyToAccount(generatePrivateKey());
  await chain.mint(sold.buyer.address, 1_000_000n);
  const syms = original.twoDays[1]!.board.names.slice(0, 2).map((n) => n.sym);
  sold.path = `/api/board/name?sym=${syms.join(",")}`;
  sold.payment = await signedPayment(original, sold.buyer, sold.path);
  const paid = await original.paidGet(sold.path, sold.payment);
  expect(paid.status).toBe(200);
  sold.bytes = Buffer.from(await paid.arrayBuffer());
  sold.paymentResponse = paid.headers.get("payment-response")!;
  sold.transaction = decodePaymentResponseHeader(sold.paymentResponse).transaction;
  sold.receipt = extractReceiptFromResponse(paid) as JWSSignedReceipt;
  expect(await verifyReceiptSignatureJWS(sold.receipt)).toMatchObject({ transaction: sold.transaction });
  await until(async () => {
    const row = await withClient(original.db.url, (c) => c.query<{ id: string }>("select id from payments.claims where transaction = $1 and state = 'settled'", [sold.transaction]));
    sold.claimId = row.rows[0]?.id ?? "";
    return sold.claimId !== "";
  });
  lap("data made");

  // The backup, taken while every service runs: pg_dump reads the snapshot a repeatable-read
  // transaction exported, and the same transaction counts and digests every table, so what the
  // dump holds is known exactly although the services go on writing.
  const dumpFile = (dir: string) => path.join(dir, "board.dump");
  scratch = await ScratchPostgres.start(tools, owner);
  lap("scratch server started");
  await withClient(original.db.url, async (c) => {
    await c.query("begin isolation level repeatable read");
    const snapshot = (await c.query<{ s: string }>("select pg_export_snapshot() as s")).rows[0]!.s;
    backedUp = await digestsWith(c, SCHEMAS);
    await dumpDatabase(tools, original.db.url, dumpFile(scratch!.dir), snapshot);
    await c.query("commit");
  });
  lap("backed up");
  licenceAfterBackup = await request(original.nc, identityLicenseIssue, { kind: "scanner", period: "monthly", holder: "after the backup" }, { timeoutMs: 5000 });

  // The original stack goes, and its database with it (Stack.stop drops it): from here on
  // nothing can come from anywhere but the backup. The chain stays: it is the world's.
  const origin = original.base;
  const port = Number(new URL(origin).port);
  await original.stop();
  originalStopped = true;
  const dbName = new URL(original.db.url).pathname.slice(1);
  restoredUrl = await scratch.restore(dumpFile(scratch.dir), dbName);
  restoredRows = await tableDigests(restoredUrl, SCHEMAS);
  lap("restored");

  // The services on the restored database, at the same public origin (the receipts' did:web and
  // the OAuth issuer name it) and with the same secrets, as a restored production would run.
  // The gateway takes the old one's port again (freed just above, below the kernel's range for
  // port-0 binds, so only another test's freePort() could take it meanwhile).
  // The harness makes the bus's streams anew: the boards can only come from the database.
  restored = new Stack();
  await restored.start({
    databaseUrlFor: () => restoredUrl,
    identity: { IDENTITY_SECRET: original.identitySecret, PUBLIC_BASE_URL: origin },
    gateway: { PORT: port, PUBLIC_BASE_URL: origin },
  });
  restored.base = origin;
  await restored.startBoard();
  await restored.startPayments({ ...paymentsEnv(), RECEIPT_SECRET: original.receiptSecret, PUBLIC_BASE_URL: origin });
  await restored.untilServing();
  lap("restored stack serving");
}, 115_000);

afterAll(async () => {
  try {
    await restored?.stop();
    if (!originalStopped) await original.stop();
  } finally {
    // The scratch server and its folder go whatever happened above.
    await scratch?.stop();
    await chain?.stop();
    lap("stopped");
    console.log(`backup-restore timings (ms from the start of the file): ${JSON.stringify(timings)}`);
  }
});

describe("a database backed up with pg_dump, restored with pg_restore into a server of its own", () => {
  it("holds every row the backup saw: each service's tables and the migration journals, row for row", () => {
    const tables = Object.keys(backedUp);
    for (const schema of SCHEMAS) expect(tables.some((t) => t.startsWith(`${schema}.`)), `tables of ${schema}`).toBe(true);
    for (const table of ["board.commitments", "board.snapshots", "identity.licenses", "payments.claims", "payments.receipt_keys"])
      expect(backedUp[table]?.rows, `${table} rows`).toBeGreaterThan(0);
    expect(restoredRows).toEqual(backedUp);
  });

  it("passes the restore guide's checks: every statement of docs/operations-restore.md runs, and the proof chain has no gap", async () => {
    const doc = readFileSync(path.resolve(import.meta.dirname, "../../docs/operations-restore.md"), "utf8");
    const block = /```sql\n([\s\S]*?)```/.exec(doc)?.[1];
    expect(block, "a ```sql block of checks").toBeDefined();
    const statements = block!
      .split("\n")
      .map((l) => l.replace(/--.*$/, "").trim())
      .join(" ")
      .split(";")
      .map((s) => s.trim())
      .filter(Boolean);
    expect(statements.length).toBeGreaterThan(3);
    await withClient(restoredUrl, async (c) => {
      for (const sql of statements) await c.query(sql);
      const chain = (await c.query<{ n: number; top: number }>("select count(*)::int as n, max(seq) as top from board.commitments")).rows[0]!;
      expect(chain).toEqual({ n: original.twoDays.length, top: original.twoDays.length });
    });
  });
});

describe("the stack started on the restored database", () => {
  it("serves the same proof chain: the same commitments, head and total", async () => {
    const proof = await proofOf(restored!);
    expect(proof.total).toBe(original.twoDays.length);
    expect(proof.head).toEqual(sold.proof!.head);
    expect(proof.entries).toEqual(sold.proof!.entries);
  });

  it("knows the same licence: its key still resolves, its bearer still reads; a licence issued after the backup is unknown", async () => {
    const read = await licenceRead(restored!, sold.licence!.key);
    expect(read.status).toBe(200);
    expect(read.headers.get("x-board-tier")).toBe("scanner_license");
    await read.body?.cancel();
    const listed = await request(restored!.nc, identityLicenseList, {}, { timeoutMs: 5000 });
    expect(listed.licenses.find((l) => l.license_id === sold.licence!.license.license_id)).toEqual(sold.licence!.license);
    const bearer = await fetch(`${restored!.base}/api/board/buylist`, { headers: { authorization: `Bearer ${sold.bearer}` } });
    expect(bearer.status).toBe(200);
    expect(bearer.headers.get("x-board-tier")).toBe("bearer");
    await bearer.body?.cancel();
    const later = await licenceRead(restored!, licenceAfterBackup!.key);
    expect(later.status).toBe(403);
    expect(((await later.json()) as { error: { code: string } }).error.code).toBe("license_unknown");
  });

  it("has the same claims and receipts: the receipt verifies against the restored gateway, its claim is there, its commitment is in the chain", async () => {
    // No key given: the receipt's kid (did:web of the origin) is resolved at the restored gateway.
    const verified = (await verifyReceiptSignatureJWS(sold.receipt!)) as unknown as Record<string, unknown>;
    expect(verified).toMatchObject({ transaction: sold.transaction, payer: sold.buyer!.address, resourceUrl: `${restored!.base}${sold.path.split("?")[0]}` });
    const entry = (await proofOf(restored!)).entries.find((e) => e.commitment === verified.commitment);
    expect(entry, "the receipt's commitment in the restored chain").toBeDefined();
    expect(entry!.seq).toBe(verified.proofSeq);
    expect(await restored!.payments!.claims.get(sold.claimId)).toMatchObject({ state: "settled", transaction: sold.transaction });
  });

  it("refuses the used payment for anything but its read, charging nothing, and delivers that read again with its receipt", async () => {
    const balance = await chain.balanceOf(payTo);
    const other = `/api/board/name?sym=${original.twoDays[1]!.board.names[2]!.sym}`;
    expect(await refusal(await restored!.paidGet(other, sold.payment))).toBe("payment_already_used");
    const again = await restored!.paidGet(sold.path, sold.payment);
    expect(again.status).toBe(200);
    expect(again.headers.get("payment-redelivery")).toBe("1");
    expect(again.headers.get("payment-response")).toBe(sold.paymentResponse);
    expect(Buffer.from(await again.arrayBuffer()).equals(sold.bytes)).toBe(true);
    expect(await chain.balanceOf(payTo)).toBe(balance);
  });

  it("keeps selling: a new payment buys a read, its receipt signed by the same restored key", async () => {
    const payment = await signedPayment(restored!, sold.buyer!, "/api/board/regime");
    const res = await restored!.paidGet("/api/board/regime", payment);
    expect(res.status).toBe(200);
    await res.body?.cancel();
    const receipt = extractReceiptFromResponse(res) as JWSSignedReceipt;
    expect(await verifyReceiptSignatureJWS(receipt)).toMatchObject({ payer: sold.buyer!.address, commitment: sold.proof!.head!.commitment });
    expect(decodeProtectedHeader(receipt.signature).kid).toBe(decodeProtectedHeader(sold.receipt!.signature).kid);
  });
});
