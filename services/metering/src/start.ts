import { fileURLToPath } from "node:url";
import {
  meteringBurstTake,
  meteringConsume,
  meteringConsumeMany,
  meteringNewCredential,
  meteringReadsServed,
  meteringRefund,
  NEW_CREDENTIAL_WINDOW_SECONDS,
  READS_SERVED_EVENT_SUBJECT,
  ReadsServedReply,
  SERVED_READS_STREAM,
} from "@board/proto";
import { awaitStream, bind, startRuntime, type Runtime } from "@board/service-kit";
import pkg from "../package.json" with { type: "json" };
import { BurstLimiter } from "./burst/burst-limiter.js";
import { burstMemberId, joinBurstMembers, registerBurstMetrics, sendTakesOverBus } from "./burst/cluster.js";
import { BurstOwners } from "./burst/owners.js";
import { SharedBurst } from "./burst/shared-burst.js";
import { DailyCaps } from "./daily/daily-caps.js";
import { utcDayBefore } from "./daily/utc-day.js";
import * as schema from "./db/schema.js";
import type { MeteringEnv } from "./env.js";
import { Meter } from "./meter.js";
import { NewCredentials } from "./new-credentials/new-credentials.js";
import { ReadsServedLedger } from "./reads-served/ledger.js";
import { followServedReads } from "./reads-served/reader.js";

const HOUR_MS = 3_600_000;

export interface MeteringService {
  readonly runtime: Runtime<typeof schema>;
  readonly meter: Meter;
  readonly caps: DailyCaps;
  /** The burst buckets this replica owns and how its checks were answered. */
  readonly burst: SharedBurst;
  /** The replicas owning burst buckets, as this one sees them. */
  readonly owners: BurstOwners;
  readonly ledger: ReadsServedLedger;
  /** New free keys and wallet sign-ins per client address. */
  readonly newCredentials: NewCredentials;
  /** Reads served per route, as metering.v1.reads_served answers. */
  readsServed(): Promise<ReadsServedReply>;
  stop(): Promise<void>;
}

export interface MeteringOptions {
  /** The clock of the daily counts and burst buckets (tests move it across days). */
  now?: () => Date;
  /** How often the served-reads reader checks the stream was not made anew (default 30 s). */
  streamCheckMs?: number;
}

/** Daily caps, burst limits and reads served, answered on metering.v1.*. */
export async function startMetering(env: MeteringEnv, opts: MeteringOptions = {}): Promise<MeteringService> {
  const now = opts.now ?? (() => new Date());
  const rt = await startRuntime({
    service: "metering",
    version: pkg.version,
    description: "Daily caps, burst limits and reads served",
    env,
    database: { migrationsFolder: fileURLToPath(new URL("../drizzle", import.meta.url)), schema },
  });
  try {
    const db = rt.database!.db;
    const caps = new DailyCaps(db);
    const ledger = new ReadsServedLedger(db);
    const newCredentials = new NewCredentials(db, { free_key: env.FREE_KEYS_PER_ADDRESS_PER_HOUR, wallet: env.SIGN_INS_PER_ADDRESS_PER_HOUR }, NEW_CREDENTIAL_WINDOW_SECONDS);
    const principals = new BurstLimiter({ capacity: env.BURST_CAPACITY, per_second: env.BURST_PER_SECOND }, env.BURST_MAX_BUCKETS);
    const addresses = new BurstLimiter({ capacity: env.ANON_BURST_CAPACITY, per_second: env.ANON_BURST_PER_SECOND }, env.BURST_MAX_BUCKETS);
    const monotonic = () => performance.now();
    const owners = new BurstOwners(burstMemberId(rt.instance), 3 * env.BURST_HEARTBEAT_MS);
    const burst = new SharedBurst({
      owners,
      limiters: { principal: principals, address: addresses },
      now: () => now().getTime(),
      monotonic,
      send: sendTakesOverBus(rt.bus.nc, env.BURST_FORWARD_TIMEOUT_MS),
      log: rt.log,
      batchMax: 500,
    });
    registerBurstMetrics(rt.metrics.registry, burst, owners);
    const meter = new Meter({ caps, burst, now });
    const readsServed = async (): Promise<ReadsServedReply> => ({ reads_served: await ledger.totals(), as_of: now().toISOString() });

    // Buckets that have refilled are forgotten, so memory holds only the clients reading now.
    const sweeper = setInterval(() => {
      const at = now().getTime();
      principals.sweep(at);
      addresses.sweep(at);
    }, Math.min(60_000, Math.max(1000, principals.refillMs, addresses.refillMs)));
    sweeper.unref();
    rt.lifecycle.onStop("burst sweep", () => clearInterval(sweeper));

    const prune = () =>
      Promise.all([
        caps.prune(utcDayBefore(now(), env.DAILY_RETENTION_DAYS)).catch((err: unknown) => rt.log.warn({ err }, "pruning old daily counts failed")),
        newCredentials.prune(now()).catch((err: unknown) => rt.log.warn({ err }, "pruning old new-credential counts failed")),
      ]);
    await prune();
    const pruner = setInterval(() => void prune(), HOUR_MS);
    pruner.unref();
    rt.lifecycle.onStop("daily prune", () => clearInterval(pruner));

    // The gateway publishes served reads into this stream, which the deploy step makes (a
    // service may not): metering answers once it exists, so no read is served uncounted.
    await awaitStream(rt.bus.nc, SERVED_READS_STREAM, { log: rt.log });
    const reader = followServedReads({
      nc: rt.bus.nc,
      ledger,
      log: rt.log,
      batchMax: env.READS_BATCH_MAX,
      batchWaitMs: env.READS_BATCH_WAIT_MS,
      ...(opts.streamCheckMs ? { streamCheckMs: opts.streamCheckMs } : {}),
      // The board's status view follows these totals without asking per read.
      onCounted: async () => rt.bus.nc.publish(READS_SERVED_EVENT_SUBJECT, JSON.stringify(ReadsServedReply.parse(await readsServed()))),
    });
    rt.lifecycle.onStop("served reads", () => reader.stop());

    // The members are known before the first check is routed; this replica owns buckets only
    // once its take endpoint is served, and gives them up before it stops serving.
    const membership = await joinBurstMembers({ nc: rt.bus.nc, owners, log: rt.log, heartbeatMs: env.BURST_HEARTBEAT_MS, monotonic });
    await rt.serve([
      bind(meteringConsume, (req) => meter.consume(req)),
      bind(meteringConsumeMany, (req) => meter.consumeMany(req)),
      bind(meteringRefund, (req) => meter.refund(req)),
      bind(meteringReadsServed, readsServed),
      bind(meteringNewCredential, (req) => newCredentials.admit(req, now())),
      bind(meteringBurstTake(owners.self), async (req) => ({ results: burst.serve(req.takes) })),
    ]);
    membership.announce();
    rt.lifecycle.onStop("burst membership", () => membership.leave());
    return { runtime: rt, meter, caps, ledger, newCredentials, readsServed, burst, owners, stop: () => rt.stop() };
  } catch (err) {
    await rt.stop();
    throw err;
  }
}
