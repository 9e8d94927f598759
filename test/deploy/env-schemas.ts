import { createBusKey } from "@board/service-kit/bus-access";
import type { z } from "zod";
import { BoardEnv } from "../../services/board/src/env.js";
import { GatewayEnv } from "../../services/gateway/src/env.js";
import { IdentityEnv } from "../../services/identity/src/env.js";
import { MeteringEnv } from "../../services/metering/src/env.js";
import { PaymentsEnv } from "../../services/payments/src/env.js";
import { ScannerEnv } from "../../services/scanner-ingest/src/env.js";
import type { ServiceName } from "./tools.js";

/** Each service's own env.ts schema: the one truth for what its configuration may be. */
export const ENV_SCHEMAS: Record<ServiceName, z.ZodObject> = {
  board: BoardEnv,
  gateway: GatewayEnv,
  identity: IdentityEnv,
  metering: MeteringEnv,
  payments: PaymentsEnv,
  "scanner-ingest": ScannerEnv,
};

/** Variables that hold secrets (or URLs that commonly embed an API key): never in a ConfigMap or an image. */
export const SECRET_VARIABLE = /SECRET|PASSWORD|TOKEN|MNEMONIC|_KEY$|NKEY_SEED|DATABASE_URL|RPC_URL|^ALGOD_URL$/;

/** A well-formed value per secret variable, standing in for the Secret a cluster would hold. */
export const SECRET_STAND_INS: Record<string, string> = {
  DATABASE_URL: "postgresql://board:password@board-db-rw:5432/board",
  IDENTITY_SECRET: "x".repeat(48),
  VENDOR_API_KEY: "vendor-key",
  NATS_NKEY_SEED: createBusKey().seed,
};

/** The issues of parsing an environment with a service's schema, as "VARIABLE: message" lines. */
export function configIssues(service: ServiceName, env: Record<string, string>): string[] {
  const parsed = ENV_SCHEMAS[service].safeParse(env);
  return parsed.success ? [] : parsed.error.issues.map((i) => `${service}: ${i.path.join(".")}: ${i.message}`);
}
