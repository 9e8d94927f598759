import { fileURLToPath } from "node:url";
import { startRuntime, type Runtime } from "@board/service-kit";
import pkg from "../package.json" with { type: "json" };
import { ClaimStore } from "./claims/store.js";
import * as schema from "./db/schema.js";
import type { PaymentsEnv } from "./env.js";

export interface PaymentsService {
  readonly runtime: Runtime<typeof schema>;
  readonly claims: ClaimStore;
  stop(): Promise<void>;
}

/**
 * The payments service as it stands: its claims table (the single-use guarantee) is in
 * place; offers, verification and settlement on the bus arrive with the payments capability.
 */
export async function startPayments(env: PaymentsEnv): Promise<PaymentsService> {
  const rt = await startRuntime({
    service: "payments",
    version: pkg.version,
    description: "Offers, verification, settlement, claims and receipts (claims in place; rails pending)",
    env,
    database: { migrationsFolder: fileURLToPath(new URL("../drizzle", import.meta.url)), schema },
  });
  const claims = new ClaimStore(rt.database!.db);
  await rt.serve([]);
  return { runtime: rt, claims, stop: () => rt.stop() };
}
