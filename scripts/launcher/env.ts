import { BUS_PRINCIPALS, type BusPrincipal } from "@board/proto";
import { z } from "zod";

const nkeySeed = z
  .string()
  .regex(/^SU[A-Z2-7]{56}$/, "must be a user nkey seed (SU...)")
  .optional()
  .describe("With NATS_URL: this principal's nkey seed on that bus; each service gets its own as NATS_NKEY_SEED, the operator's is for the licence and arrears tools.");
/** NATS_NKEY_SEED_GATEWAY, ..., NATS_NKEY_SEED_SCANNER_INGEST, NATS_NKEY_SEED_OPERATOR. */
const seedVariable = (principal: BusPrincipal) => `NATS_NKEY_SEED_${principal.toUpperCase().replace(/-/g, "_")}`;

/** What `npm start` reads: every other setting passes through to the services unchanged. */
export const LauncherEnv = z.object({
  NATS_URL: z
    .string()
    .min(1)
    .optional()
    .describe("Unset: its own nats-server (JetStream and authorization on, data under DATA_DIR/nats) when the binary is on PATH, else it says how to get one."),
  /** With NATS_URL: each principal's credential on that bus (NATS_NKEY_SEED_<PRINCIPAL>); without it the launcher makes its own. */
  ...Object.fromEntries(BUS_PRINCIPALS.map((p) => [seedVariable(p), nkeySeed])),
  DATABASE_URL: z
    .string()
    .min(1)
    .optional()
    .describe("Unset: its own PostgreSQL 17 server (data under DATA_DIR/postgres, loopback only), a role per service owning only its schema."),
  DATA_DIR: z.string().min(1).default(".data").describe("Where its PostgreSQL server and NATS, its secrets and the development wallets keep data."),
  /** Passed to identity; when unset, a secret generated once for this machine (see launcher/secrets.ts). */
  IDENTITY_SECRET: z.string().min(32).optional(),
  /** Passed to payments (it encrypts the keys that sign receipts); when unset, one generated once for this machine. */
  RECEIPT_SECRET: z.string().min(32).optional(),
  PORT: z.coerce.number().int().min(0).max(65535).default(8080).describe("The gateway's HTTP port; PUBLIC_BASE_URL follows it when unset."),
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

/** The seeds given for a bus named by NATS_URL, per principal. */
export function givenBusSeeds(env: LauncherEnv): Partial<Record<BusPrincipal, string>> {
  const vars = env as Record<string, unknown>;
  const seeds: Partial<Record<BusPrincipal, string>> = {};
  for (const p of BUS_PRINCIPALS) if (typeof vars[seedVariable(p)] === "string") seeds[p] = vars[seedVariable(p)] as string;
  return seeds;
}

/** The environment the services inherit: never another principal's bus credential (each gets its own as NATS_NKEY_SEED). */
export const inheritedEnv = (): Record<string, string | undefined> =>
  Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("NATS_NKEY_SEED")));
