import { z } from "zod";

/** What `npm start` reads: every other setting passes through to the services unchanged. */
export const LauncherEnv = z.object({
  NATS_URL: z.string().min(1).optional(),
  DATABASE_URL: z.string().min(1).optional(),
  DATA_DIR: z.string().min(1).default(".data"),
  /** Passed to identity; when unset, a secret generated once for this machine (see launcher/secrets.ts). */
  IDENTITY_SECRET: z.string().min(32).optional(),
  /** Passed to payments (it encrypts the keys that sign receipts); when unset, one generated once for this machine. */
  RECEIPT_SECRET: z.string().min(32).optional(),
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  /** First service health port (gateway, board, identity, metering, payments, scanner-ingest follow); 0: any free ports. */
  HEALTH_PORT_BASE: z.coerce.number().int().min(0).max(65000).default(9101),
  /** How long to wait for every service to answer its ping. */
  START_TIMEOUT_SECONDS: z.coerce.number().int().min(5).max(600).default(90),
  /** Unset: http://localhost:<PORT>, so every absolute URL the services publish follows PORT. */
  PUBLIC_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
  /**
   * auto: when no payment rail is configured, start local development chains and offer every
   * rail against them (no real money); off: never. Any rail variable set means no development chain.
   */
  DEV_CHAINS: z.enum(["auto", "off"]).default("auto"),
  PAY_TO_BASE: z.string().optional(),
  PAY_TO_SOLANA: z.string().optional(),
  PAY_TO_ALGORAND: z.string().optional(),
  CIRCLE_GATEWAY_URL: z.string().optional(),
  MPP_SECRET_KEY: z.string().optional(),
});
export type LauncherEnv = z.infer<typeof LauncherEnv>;

export const launcherEnv = () => LauncherEnv.parse(process.env);
/** The environment the services inherit. */
export const inheritedEnv = (): Record<string, string | undefined> => ({ ...process.env });
