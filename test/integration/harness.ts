import { randomBytes } from "node:crypto";
import { boardContentHash, SERVED_READS_STREAM, type BusPrincipal, type Route, type Snapshot } from "@board/proto";
import { ensureBusStreams } from "@board/service-kit";
import { busEnvOf, busOptionsOf, deleteSnapshotStream, fixtureSnapshot, freePort, liveSnapshot, freshDatabase, testInfra, type TestDatabase } from "@board/service-kit/testing";
import { eip3009TokenAbi, type EvmChain } from "@board/test-chains/evm";
import { connect, type ConnectionOptions, type NatsConnection } from "nats";
import { createPublicClient, createWalletClient, http, type Address, type Hash, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { expect } from "vitest";
import { BoardEnv } from "../../services/board/src/env.js";
import { startBoard, type BoardService } from "../../services/board/src/start.js";
import { GatewayEnv } from "../../services/gateway/src/env.js";
import { PaymentsEnv } from "../../services/payments/src/env.js";
import { startPayments, type PaymentsOptions, type PaymentsService } from "../../services/payments/src/start.js";
import { startGateway, type GatewayService } from "../../services/gateway/src/start.js";
import { IdentityEnv } from "../../services/identity/src/env.js";
import { startIdentity } from "../../services/identity/src/start.js";
import { MeteringEnv } from "../../services/metering/src/env.js";
import { startMetering } from "../../services/metering/src/start.js";

/** Metering settings that lift the hourly limits on new free keys and wallet sign-ins per client address. */
export const NO_NEW_CREDENTIAL_LIMITS = { FREE_KEYS_PER_ADDRESS_PER_HOUR: "1000000", SIGN_INS_PER_ADDRESS_PER_HOUR: "1000000" } as const;

export interface StackOptions {
  /** The clock of identity and metering (days, idle expiry, sessions, tokens). */
  now?: () => Date;
  /**
   * Metering settings; by default the anonymous burst and the new keys and sign-ins per client
   * address are lifted, so tests that poll, or issue many keys from 127.0.0.1, are not limited.
   */
  metering?: Record<string, string>;
  identity?: Record<string, string>;
  /** Gateway settings (a fault test's short BUS_TIMEOUT_MS, so a request lost with a killed service answers in seconds). */
  gateway?: Record<string, string | number>;
  /** The bus this stack runs on, instead of the shared test NATS (a fault test's own nats-server). */
  natsUrl?: string;
  /** The address the services reach Postgres at, from the fresh database's URL (a fault test's proxy in front of it). */
  databaseUrlFor?: (url: string) => string;
  /**
   * A bus with authorization on: each service's nkey seed (NATS_NKEY_SEED), and `admin`, the
   * seed of the unrestricted user the test itself connects as (publishing boards, asking services).
   */
  natsSeeds?: Partial<Record<BusPrincipal | "admin", string>>;
}

/**
 * A gateway and a board on the real test NATS and Postgres. The board is started from its
 * own package here only to be the gateway's real peer on the bus; nothing is mocked.
 */
export class Stack {
  nc!: NatsConnection;
  db!: TestDatabase;
  board: BoardService | null = null;
  payments: PaymentsService | null = null;
  identity: Awaited<ReturnType<typeof startIdentity>> | null = null;
  metering: Awaited<ReturnType<typeof startMetering>> | null = null;
  gateway!: GatewayService;
  readonly infra = testInfra();
  /** Generated per stack: test keys never live in the repository. */
  readonly identitySecret = randomBytes(32).toString("base64url");
  /** Payments' receipt secret: one per stack, so a restarted payments still opens the receipt keys it made. */
  readonly receiptSecret = randomBytes(32).toString("base64url");
  /** The gateway's address, known before it starts, so every service agrees on PUBLIC_BASE_URL (sign-in and token binding). */
  base = "";

  /** The bus the stack's services use (StackOptions.natsUrl, else the shared test NATS). */
  natsUrl = this.infra.natsUrl;
  /** The credentials of that bus (the suite's bus has authorization on; a fault test's own server brings its own). */
  natsSeeds: Partial<Record<BusPrincipal | "admin", string>> = this.infra.natsSeeds ?? {};
  /** The Postgres URL the services use (StackOptions.databaseUrlFor applied to the fresh database's). */
  databaseUrl = "";

  private common() {
    return { NATS_URL: this.natsUrl, DATABASE_URL: this.databaseUrl, HEALTH_PORT: 0, LOG_LEVEL: "warn" };
  }

  /** A service's bus credential, when the stack runs on a bus with authorization on. */
  private seed(principal: BusPrincipal): { NATS_NKEY_SEED?: string } {
    const seed = this.natsSeeds[principal];
    return seed ? { NATS_NKEY_SEED: seed } : {};
  }

  /** A service's bus settings on this stack's bus (for one a test starts or spawns itself). */
  busEnv(principal: BusPrincipal): { NATS_URL: string; NATS_NKEY_SEED?: string } {
    return busEnvOf(this.natsUrl, this.natsSeeds, principal);
  }

  /** nats.js options for a test's own connection to this stack's bus: the admin, or a principal. */
  busOptions(user: BusPrincipal | "admin" = "admin"): ConnectionOptions {
    return busOptionsOf(this.natsUrl, this.natsSeeds, user);
  }

  async start(opts: StackOptions = {}) {
    if (opts.natsUrl) {
      this.natsUrl = opts.natsUrl;
      this.natsSeeds = opts.natsSeeds ?? {};
    } else if (opts.natsSeeds) this.natsSeeds = opts.natsSeeds;
    this.nc = await connect(this.busOptions());
    await deleteSnapshotStream(this.nc);
    // Each file counts its own served reads.
    await (await this.nc.jetstreamManager()).streams.delete(SERVED_READS_STREAM).catch(() => false);
    // The deploy step, as the operator would run it: services may use the streams, never make them.
    await ensureBusStreams(this.nc);
    this.db = await freshDatabase(this.infra.databaseUrl);
    this.databaseUrl = opts.databaseUrlFor ? opts.databaseUrlFor(this.db.url) : this.db.url;
    const port = await freePort();
    this.base = `http://127.0.0.1:${port}`;
    const clock = opts.now ? { now: opts.now } : {};
    this.metering = await startMetering(
      MeteringEnv.parse({ ...this.common(), ...this.seed("metering"), ANON_BURST_CAPACITY: "100000", ANON_BURST_PER_SECOND: "100000", ...NO_NEW_CREDENTIAL_LIMITS, ...opts.metering }),
      clock,
    );
    this.identity = await startIdentity(
      IdentityEnv.parse({ ...this.common(), ...this.seed("identity"), IDENTITY_SECRET: this.identitySecret, PUBLIC_BASE_URL: this.base, ...opts.identity }),
      clock,
    );
    this.gateway = await startGateway(
      GatewayEnv.parse({ NATS_URL: this.natsUrl, ...this.seed("gateway"), PORT: port, HOST: "127.0.0.1", HEALTH_PORT: 0, LOG_LEVEL: "warn", BUS_TIMEOUT_MS: 2000, PUBLIC_BASE_URL: this.base, ...opts.gateway }),
      clock,
    );
  }

  async startBoard(opts: { now?: () => Date } = {}) {
    this.board = await startBoard(BoardEnv.parse({ ...this.common(), ...this.seed("board") }), opts);
    return this.board;
  }

  /** The payments service on this stack's bus and database, configured by `env` (rails, payTo, keys). */
  async startPayments(env: Record<string, string> = {}, opts: PaymentsOptions = {}) {
    this.payments = await startPayments(
      PaymentsEnv.parse({ ...this.common(), ...this.seed("payments"), PUBLIC_BASE_URL: this.base, RECEIPT_SECRET: this.receiptSecret, ...env }),
      opts,
    );
    return this.payments;
  }

  /** Waits until the gateway serves the board of `asofDaily` (publishTwoDays' current day). */
  async untilServing(asofDaily = "2026-11-20") {
    await until(async () => {
      const r = await fetch(`${this.base}/api/board/status`);
      return r.status === 200 && ((await r.json()) as { asof_daily: string }).asof_daily === asofDaily;
    });
  }

  /** GET with a payment in `header` (PAYMENT-SIGNATURE unless told). */
  paidGet(path: string, payment: string, header = "payment-signature") {
    return fetch(`${this.base}${path}`, { headers: { [header]: payment } });
  }

  async stopPayments() {
    await this.payments?.stop();
    this.payments = null;
  }

  async stopBoard() {
    await this.board?.stop();
    this.board = null;
  }

  async publish(snapshot: unknown) {
    return this.nc.jetstream().publish("board.snapshots.v1", new TextEncoder().encode(JSON.stringify(snapshot)));
  }

  /** Two trading days of fixture boards; `live` adds the engine section the live tier is cut from. */
  async publishTwoDays(opts: { live?: boolean } = {}) {
    const make = opts.live ? liveSnapshot : fixtureSnapshot;
    this.twoDays = [
      make({ asofDaily: "2026-11-19", computedAt: "2026-11-19T13:00:00-08:00", seed: 1 }),
      make({ asofDaily: "2026-11-20", computedAt: "2026-11-20T09:55:00-08:00", seed: 2, intraday: true }),
    ];
    for (const s of this.twoDays) await this.publish(s);
  }

  /** The boards publishTwoDays published, oldest first. */
  twoDays: Snapshot[] = [];

  /**
   * A query that sells `route` on the two days' boards: a symbol both carry, the first day's
   * date, the first board's content hash (and nothing for a route without parameters).
   */
  sellingQuery(route: Route): Record<string, string> {
    const [first] = this.twoDays;
    if (!first) throw new Error("publishTwoDays first");
    const shape = route.query.shape as Record<string, unknown>;
    return {
      ...("sym" in shape && { sym: first.board.names[0]!.sym }),
      ...("date" in shape && { date: first.board.asof_daily }),
      ...("since" in shape && { since: boardContentHash(first.board as unknown as Record<string, unknown>) }),
    };
  }

  async stop() {
    await this.gateway?.stop();
    await this.stopPayments();
    await this.stopBoard();
    await this.identity?.stop();
    await this.metering?.stop();
    await this.nc?.close();
    await this.db?.drop();
  }
}

/** Checks a refused payment's 402 (offers again, advice in `message`) and returns its reason code. */
export async function refusal(res: Response): Promise<string> {
  expect(res.status).toBe(402);
  expect(res.headers.get("payment-required")).toBeTruthy();
  const body = (await res.json()) as { error: string; message: string };
  expect(body.message.length).toBeGreaterThan(10);
  return body.error;
}

/**
 * Someone else settles an x402 EIP-3009 payment (a base64 PAYMENT-SIGNATURE value) straight on
 * the token, from `relayerKey`: the authorization is used on chain meanwhile. Mined when it resolves.
 */
export async function executeElsewhere(
  chain: EvmChain,
  relayerKey: Hex,
  payment: string,
  /** Gas and fees given (a node estimates against its pending block, where the authorization may be used already). */
  fees: { gas?: bigint; maxPriorityFeePerGas?: bigint; maxFeePerGas?: bigint } = {},
): Promise<Hash> {
  const { payload } = JSON.parse(Buffer.from(payment, "base64").toString()) as {
    payload: { signature: Hex; authorization: { from: Address; to: Address; value: string; validAfter: string; validBefore: string; nonce: Hex } };
  };
  const a = payload.authorization;
  const relayer = createWalletClient({ account: privateKeyToAccount(relayerKey), chain: chain.chain, transport: http(chain.rpcUrl) });
  const hash = await relayer.writeContract({
    address: chain.usdc,
    abi: eip3009TokenAbi,
    functionName: "transferWithAuthorization",
    args: [a.from, a.to, BigInt(a.value), BigInt(a.validAfter), BigInt(a.validBefore), a.nonce, payload.signature],
    ...fees,
  });
  await createPublicClient({ chain: chain.chain, transport: http(chain.rpcUrl) }).waitForTransactionReceipt({ hash });
  return hash;
}

/** The answers that bought a read (200 without Payment-Redelivery): a payment buys one. */
export const purchases = (answers: Response[]) => answers.filter((r) => r.status === 200 && r.headers.get("payment-redelivery") === null);

/** A 200 that delivered a settled payment's read again: which redelivery, and its receipt. */
export async function expectRedelivered(res: Response, n: number) {
  expect(res.status).toBe(200);
  expect(res.headers.get("payment-redelivery")).toBe(String(n));
  expect(res.headers.get("payment-response") ?? res.headers.get("payment-receipt")).toBeTruthy();
  await res.arrayBuffer();
}

export async function until(cond: () => boolean | Promise<boolean>, ms = 10_000) {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 50));
  }
}

