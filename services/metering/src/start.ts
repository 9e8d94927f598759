import { startRuntime, type Runtime } from "@board/service-kit";
import pkg from "../package.json" with { type: "json" };
import type { MeteringEnv } from "./env.js";

/**
 * The metering service as it stands: connected to the bus and its database, registered
 * ($SRV discovery, stats, metering.v1.ping) and ready. Its endpoints arrive with its capability.
 */
export async function startMetering(env: MeteringEnv): Promise<Runtime<Record<string, never>>> {
  const rt = await startRuntime({
    service: "metering",
    version: pkg.version,
    description: "Daily caps, burst limits and reads served (skeleton: capability pending)",
    env,
    database: {},
  });
  await rt.serve([]);
  return rt;
}
