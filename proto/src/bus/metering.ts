import { z } from "zod";
import { IsoDate, IsoDateTime } from "../records/common.js";
import { Tier } from "../routes/catalogue.js";
import { busEndpoint, type BusEndpoint } from "./endpoint.js";

/**
 * What a read is metered as: `free` counts against the daily cap (25 a day per free key or
 * wallet address) and the principal's burst; `licensed` only against the principal's burst;
 * `anonymous` against the burst of its client address.
 */
export const MeterKind = z.enum(["free", "licensed", "anonymous"]);
export type MeterKind = z.infer<typeof MeterKind>;

export const ConsumeRequest = z.object({
  /** A principal id from identity, or "ip:<client address>" for anonymous reads. */
  principal: z.string().min(1).max(256),
  kind: MeterKind,
});
export type ConsumeRequest = z.infer<typeof ConsumeRequest>;

/** The daily count of a free-tier principal; null for kinds without a daily cap. */
export const DailyCount = z.object({
  /** The UTC day the read was counted on (the day boundary is 00:00 UTC). */
  day: IsoDate,
  used_today: z.number().int().min(0),
  limit: z.number().int().min(1),
  reset_at: IsoDateTime,
});
export type DailyCount = z.infer<typeof DailyCount>;

/** A refusal is an answer, with what the client needs to back off (Retry-After). */
export const ConsumeReply = z.discriminatedUnion("granted", [
  z.object({ granted: z.literal(true), daily: DailyCount.nullable() }),
  z.object({
    granted: z.literal(false),
    reason: z.enum(["daily_cap_reached", "burst_limited"]),
    retry_after_seconds: z.number().int().min(1),
    daily: DailyCount.nullable(),
  }),
]);
export type ConsumeReply = z.infer<typeof ConsumeReply>;

/** Gives back a counted read that was not served (only served reads count). */
export const RefundRequest = z.object({ principal: z.string().min(1).max(256), day: IsoDate });
export type RefundRequest = z.infer<typeof RefundRequest>;
export const RefundReply = z.object({ refunded: z.boolean() });
export type RefundReply = z.infer<typeof RefundReply>;

/** Reads served per route since the service first ran (for /api/board/status). */
export const ReadsServedReply = z.object({ reads_served: z.record(z.string(), z.number().int().min(0)), as_of: IsoDateTime });
export type ReadsServedReply = z.infer<typeof ReadsServedReply>;

export const meteringConsume = busEndpoint("metering", "consume", ConsumeRequest, ConsumeReply);

/** The most consumes one consume_many carries. */
export const MAX_CONSUMES_PER_MESSAGE = 500;
/**
 * Reads to count (burst checks and free-tier daily counts) in one bus message: a gateway
 * sends those of one event-loop turn together, answered in order, each as consume would.
 */
export const ConsumeManyRequest = z.object({
  requests: z.array(z.object({ principal: ConsumeRequest.shape.principal, kind: ConsumeRequest.shape.kind })).min(1).max(MAX_CONSUMES_PER_MESSAGE),
});
export type ConsumeManyRequest = z.infer<typeof ConsumeManyRequest>;
/** One check's answer, or the bus error consume would have answered it with. */
export const ConsumeOutcome = z.union([ConsumeReply, z.object({ failed: z.object({ code: z.string().min(1), status: z.number().int() }) })]);
export type ConsumeOutcome = z.infer<typeof ConsumeOutcome>;
export const ConsumeManyReply = z.object({ replies: z.array(ConsumeOutcome) });
export type ConsumeManyReply = z.infer<typeof ConsumeManyReply>;
export const meteringConsumeMany = busEndpoint("metering", "consume_many", ConsumeManyRequest, ConsumeManyReply);
export const meteringRefund = busEndpoint("metering", "refund", RefundRequest, RefundReply);
export const meteringReadsServed = busEndpoint("metering", "reads_served", z.object({}), ReadsServedReply);

/**
 * A served read, published by the gateway to JetStream after the response went out. Metering
 * folds them into per-route counts in batches (no counter row is touched on the read path)
 * and records the stream position in the same transaction, so a redelivery never counts twice.
 */
export const SERVED_READS_STREAM = "READS";
export const SERVED_READ_SUBJECT = "metering.events.served";
/**
 * Reads served of one route and tier, counted by a gateway over a short window (`at`: when the
 * window closed). `count` is absent in events of one read each (the earlier form).
 */
export const ServedRead = z.object({ route: z.string().startsWith("/"), tier: Tier, at: IsoDateTime, count: z.number().int().min(1).max(1_000_000).default(1) });
export type ServedRead = z.infer<typeof ServedRead>;

/** Published (core NATS) after each batch is committed, so the board's status view follows without asking per read. */
export const READS_SERVED_EVENT_SUBJECT = "metering.events.reads_served";

/**
 * The burst limit (DECISIONS.md: choose one and document it): a token bucket per principal
 * and per client address for anonymous reads. `capacity` reads at once, refilled at `per_second`.
 * It holds across metering replicas: each bucket lives in one owner replica (BurstMember).
 */
export const BurstLimit = z.object({ capacity: z.number().int().min(1), per_second: z.number().positive() });
export type BurstLimit = z.infer<typeof BurstLimit>;
export const DEFAULT_BURST = {
  principal: { capacity: 20, per_second: 10 },
  anonymous: { capacity: 40, per_second: 20 },
} as const satisfies Record<"principal" | "anonymous", BurstLimit>;

/**
 * Per-address limits count an IPv6 client by this prefix (its /64): one host is commonly given
 * a whole /64, so a full IPv6 address would let it be as many clients as it likes.
 */
export const CLIENT_ADDRESS_IPV6_PREFIX = 64;

/**
 * A credential identity refused as unknown or invalid (key_unknown, license_unknown,
 * token_invalid) is refused again by the gateway replica that asked, for this long, without
 * asking identity (and its database) again.
 */
export const REFUSED_CREDENTIAL_SECONDS = 30;

/**
 * Metering replicas share the burst limit by owning buckets: the live replicas announce
 * themselves on BURST_MEMBERS_SUBJECT, every replica ranks them alike (rendezvous hashing of
 * the bucket's key), and a check that arrives at another replica is sent on to the owner's
 * take endpoint. A member id names one run of a replica (a restart is a new member).
 */
export const BurstMemberId = z.string().regex(/^[\w-]{1,64}$/, "letters, digits, _ and - (a subject token)");
export type BurstMemberId = z.infer<typeof BurstMemberId>;

/**
 * `joining`: a replica about to serve asks the members to announce themselves (it is not a
 * member yet); `up`: a member, sent every heartbeat; `down`: a member leaving (it stops
 * owning buckets at once, without waiting for its heartbeats to lapse).
 */
export const BurstMember = z.object({ id: BurstMemberId, state: z.enum(["joining", "up", "down"]) });
export type BurstMember = z.infer<typeof BurstMember>;
/** Core NATS (no stream): membership is only ever as old as the last heartbeat. */
export const BURST_MEMBERS_SUBJECT = "metering.events.burst_members";

/** Which bucket set a take spends from: `principal` (free and licensed reads) or `address` (anonymous reads). */
export const BurstLimiterName = z.enum(["principal", "address"]);
export type BurstLimiterName = z.infer<typeof BurstLimiterName>;

/** Burst checks one replica sends on to the owner of their buckets, batched per owner. */
export const BurstTakeRequest = z.object({
  takes: z
    .array(z.object({ limiter: BurstLimiterName, key: z.string().min(1).max(256) }))
    .min(1)
    .max(500),
});
export type BurstTakeRequest = z.infer<typeof BurstTakeRequest>;
/** One result per take, in order: 0 granted, otherwise the whole seconds until a token is back (Retry-After). */
export const BurstTakeReply = z.object({ results: z.array(z.number().int().min(0)) });
export type BurstTakeReply = z.infer<typeof BurstTakeReply>;

/**
 * The take endpoint of one member, `metering.v1.burst.<member>.take`: a subject per replica,
 * because a bucket must be spent where it lives (the queue group would pick any replica).
 */
export const meteringBurstTake = (member: BurstMemberId): BusEndpoint<typeof BurstTakeRequest, typeof BurstTakeReply> => {
  const group = `metering.v1.burst.${BurstMemberId.parse(member)}`;
  return { service: "metering", group, name: "take", subject: `${group}.take`, request: BurstTakeRequest, reply: BurstTakeReply, body: "json" };
};
/** Every member's take endpoint: what a metering replica may send burst checks to (its bus grant). */
export const BURST_TAKE_SUBJECTS = "metering.v1.burst.*.take";

/** The `tier` block every free-tier 200 carries (SPEC.md 5 rule 3). */
export const TierBlock = z.object({
  name: z.enum(["free_key", "wallet"]),
  used_today: z.number().int().min(0),
  limit: z.number().int().min(1),
  remaining: z.number().int().min(0),
  reset_at: IsoDateTime,
});
export type TierBlock = z.infer<typeof TierBlock>;

/**
 * New free keys and wallet sign-ins per client address (an IPv6 client's /64,
 * CLIENT_ADDRESS_IPV6_PREFIX), counted over the last NEW_CREDENTIAL_WINDOW_SECONDS. Each email
 * and each wallet has its own 25 reads a day, and both are free to make, so without this one
 * address could collect as many daily counts as it made emails or wallets. `free_key`: every
 * key issued counts; `wallet`: each wallet counts once per window, whichever way it signs in
 * (POST /api/auth/verify or a SIGN-IN-WITH-X header), so re-signing a session costs nothing.
 */
export const NewCredentialRequest = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("free_key"), client: z.string().min(1).max(128) }),
  /** `wallet`: the signed-in wallet, as identity names the principal (wallet:<chain>:<address>). */
  z.object({ kind: z.literal("wallet"), client: z.string().min(1).max(128), wallet: z.string().min(1).max(256) }),
]);
export type NewCredentialRequest = z.infer<typeof NewCredentialRequest>;

/** A refusal is an answer, with what the client needs to back off (Retry-After: until the oldest counted one leaves the window). */
export const NewCredentialReply = z.discriminatedUnion("granted", [
  z.object({
    granted: z.literal(true),
    /** A wallet's: until when it counts for the address (its count's end), so a gateway need not ask again before then. */
    counted_until: IsoDateTime.optional(),
  }),
  z.object({
    granted: z.literal(false),
    reason: z.enum(["key_issue_limit", "sign_in_limit"]),
    limit: z.number().int().min(1),
    window_seconds: z.number().int().min(1),
    retry_after_seconds: z.number().int().min(1),
  }),
]);
export type NewCredentialReply = z.infer<typeof NewCredentialReply>;

export const meteringNewCredential = busEndpoint("metering", "new_credential", NewCredentialRequest, NewCredentialReply);

/** The window of the per-address limits on new credentials: an hour. */
export const NEW_CREDENTIAL_WINDOW_SECONDS = 3600;
/**
 * Defaults of those limits (metering's FREE_KEYS_PER_ADDRESS_PER_HOUR and
 * SIGN_INS_PER_ADDRESS_PER_HOUR): a person needs one key or one wallet; ten an hour leaves
 * room for a household or office behind one address, and caps one address at 240 fresh daily
 * counts a day per kind instead of any number.
 */
export const DEFAULT_NEW_CREDENTIAL_LIMITS = { free_key: 10, wallet: 10 } as const satisfies Record<NewCredentialRequest["kind"], number>;
