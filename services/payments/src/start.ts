import { startRuntime, type Runtime } from "@board/service-kit";
import pkg from "../package.json" with { type: "json" };
import type { PaymentsEnv } from "./env.js";

/**
 * The payments service as it stands: connected to the bus and its database, registered
 * ($SRV discovery, stats, payments.v1.ping) and ready. Its endpoints arrive with its capability.
 */
export async function startPayments(env: PaymentsEnv): Promise<Runtime<Record<string, never>>> {
  const rt = await startRuntime({
    service: "payments",
    version: pkg.version,
    description: "Offers, verification, settlement, claims and receipts (skeleton: capability pending)",
    env,
    database: {},
  });
  await rt.serve([]);
  return rt;
}
