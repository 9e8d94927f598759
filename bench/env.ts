import { SERVICE_NAMES } from "@board/proto";
import { z } from "zod";

/**
 * Where the bench finds its infrastructure. NATS_URL unset: a private nats-server (the bench's
 * bus must not be shared: a concurrent test run's services would answer its requests, and its
 * stream reset would break theirs). Postgres is shared safely: the bench uses a fresh database.
 */
export const BenchEnv = z.object({
  NATS_URL: z.string().min(1).optional(),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "must be a postgres:// URL")
    .default("postgres://postgres@127.0.0.1:5432/test"),
  /** Where the service processes find node's helpers (tsx's esbuild needs nothing else of this environment). */
  PATH: z.string().default("/usr/local/bin:/usr/bin:/bin"),
  /**
   * A service whose process (with --stack processes) runs under node's --cpu-prof: its profile is
   * written to BENCH_CPU_PROFILE_DIR when the bench stops it (open it in Chrome DevTools).
   */
  BENCH_CPU_PROFILE: z.enum(SERVICE_NAMES).optional(),
  BENCH_CPU_PROFILE_DIR: z.string().min(1).default(".data/profiles"),
});
export type BenchEnv = z.infer<typeof BenchEnv>;

export const loadBenchEnv = (): BenchEnv => BenchEnv.parse(process.env);
