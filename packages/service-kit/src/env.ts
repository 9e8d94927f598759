import { z } from "zod";

/** A configuration that cannot be used; its message lists every problem, one per line, never a value. */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
}

/**
 * Parse a service's environment with its zod schema. Each service's own env.ts calls this
 * with process.env; nothing else reads the environment.
 */
export function parseEnv<S extends z.ZodType>(schema: S, source: Record<string, string | undefined>, service: string): z.infer<S> {
  const parsed = schema.safeParse(source);
  if (parsed.success) return parsed.data;
  const lines = parsed.error.issues.map((i) => `  ${i.path.join(".") || "(environment)"}: ${i.message}`);
  throw new ConfigError(`${service}: invalid configuration\n${lines.join("\n")}`);
}

const port = z.coerce.number().int().min(0).max(65535);

/** Settings every service shares. Defaults serve a developer's machine; production sets them all. */
export const BaseEnv = z.object({
  NATS_URL: z.string().min(1).default("nats://127.0.0.1:4222"),
  /**
   * This service's nkey seed on the bus (docs/security.md): with it the service signs the
   * server's challenge and gets its own permissions. Unset: it connects without a credential,
   * which a bus with authorization on refuses.
   */
  NATS_NKEY_SEED: z
    .string()
    .regex(/^SU[A-Z2-7]{56}$/, "must be a user nkey seed (SU followed by 56 base32 characters)")
    .optional(),
  /** Unset: an embedded PGlite database under DATA_DIR/<service>. */
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "must be a postgres:// URL")
    .optional(),
  DATA_DIR: z.string().min(1).default(".data"),
  HEALTH_PORT: port,
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  /** pretty: one readable line per event; json: JSON lines. Unset: pretty on a terminal, JSON otherwise. */
  LOG_FORMAT: z.enum(["pretty", "json"]).optional(),
  /** A name for this replica in logs and $SRV discovery; defaults to host and pid. */
  INSTANCE_ID: z.string().min(1).optional(),
  /**
   * "true": nats.js captures the caller's stack on each of its own requests (JetStream
   * publishes and management; bus requests go through ReplyMux), so a timeout shows where it
   * was asked. Off by default: two Error objects per request; bus errors name their subject.
   */
  NATS_ASYNC_TRACES: z.stringbool().default(false),
  /** An OTLP/HTTP collector's base URL (spans go to <url>/v1/traces). Unset or empty: no tracing (no spans, no trace ids in logs). */
  OTEL_EXPORTER_OTLP_ENDPOINT: z.preprocess(
    (v) => (v === "" ? undefined : v),
    z.url({ protocol: /^https?$/, error: "must be an http(s) URL" }).optional(),
  ),
  /** The service.name spans carry; defaults to the service's own name. */
  OTEL_SERVICE_NAME: z.string().min(1).optional(),
  /** The share of new traces recorded, 0 to 1. A caller's sampled trace is always continued. */
  OTEL_TRACES_SAMPLER_ARG: z.coerce.number().min(0).max(1).default(1),
  /** "true": no tracing, even with a collector configured. */
  OTEL_SDK_DISABLED: z.stringbool().default(false),
});
export type BaseEnv = z.infer<typeof BaseEnv>;

/** BaseEnv with the service's own default health port. */
export function baseEnv(defaultHealthPort: number) {
  return BaseEnv.extend({ HEALTH_PORT: port.default(defaultHealthPort) });
}
