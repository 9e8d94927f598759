import { DEFAULT_BURST, DEFAULT_NEW_CREDENTIAL_LIMITS } from "@board/proto";
import { baseEnv, parseEnv } from "@board/service-kit";
import { z } from "zod";

const capacity = z.coerce.number().int().min(1).max(100_000);
const perSecond = z.coerce.number().positive().max(100_000);

export const MeteringEnv = baseEnv(9104).extend({
  /** Burst of a principal (free key, wallet, license): reads at once, and their refill per second. */
  BURST_CAPACITY: capacity.default(DEFAULT_BURST.principal.capacity),
  BURST_PER_SECOND: perSecond.default(DEFAULT_BURST.principal.per_second),
  /** Burst of one client address reading anonymously. */
  ANON_BURST_CAPACITY: capacity.default(DEFAULT_BURST.anonymous.capacity),
  ANON_BURST_PER_SECOND: perSecond.default(DEFAULT_BURST.anonymous.per_second),
  /** At most this many burst buckets per kind in memory; beyond it the least recently used goes. */
  BURST_MAX_BUCKETS: z.coerce.number().int().min(100).default(100_000),
  /**
   * Replicas announce themselves to each other this often; one silent for three of these owns
   * no burst buckets any more (a replica that stops cleanly, or whose connection drops, is
   * dropped at once). Every replica must use the same value.
   */
  BURST_HEARTBEAT_MS: z.coerce.number().int().min(100).max(60_000).default(1000),
  /**
   * A burst check sent on to the replica owning its bucket waits this long for it, then goes to
   * the next owner, then is answered here: both waits fit in the gateway's 250 ms for a burst check.
   */
  BURST_FORWARD_TIMEOUT_MS: z.coerce.number().int().min(5).max(120).default(100),
  /** Served reads are folded into the per-route counts in batches of at most this many... */
  READS_BATCH_MAX: z.coerce.number().int().min(1).max(10_000).default(500),
  /** ...or after this long since the first read of a batch arrived. */
  READS_BATCH_WAIT_MS: z.coerce.number().int().min(1).max(60_000).default(250),
  /** Daily counts are kept this many days, then deleted (a day's count matters only on that day). */
  DAILY_RETENTION_DAYS: z.coerce.number().int().min(2).max(3650).default(35),
  /**
   * New credentials one client address (an IPv6 client's /64) may get in an hour: free keys
   * issued, and wallets signed in (each wallet once). Each is a fresh 25 reads a day, so this
   * is what bounds one address's free reads. Tests that issue many keys from 127.0.0.1 lift it.
   */
  FREE_KEYS_PER_ADDRESS_PER_HOUR: z.coerce.number().int().min(1).max(1_000_000).default(DEFAULT_NEW_CREDENTIAL_LIMITS.free_key),
  SIGN_INS_PER_ADDRESS_PER_HOUR: z.coerce.number().int().min(1).max(1_000_000).default(DEFAULT_NEW_CREDENTIAL_LIMITS.wallet),
});
export type MeteringEnv = z.infer<typeof MeteringEnv>;

export const loadEnv = (): MeteringEnv => parseEnv(MeteringEnv, process.env, "metering");
