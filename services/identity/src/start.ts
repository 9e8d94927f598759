import { startRuntime, type Runtime } from "@board/service-kit";
import pkg from "../package.json" with { type: "json" };
import type { IdentityEnv } from "./env.js";

/**
 * The identity service as it stands: connected to the bus and its database, registered
 * ($SRV discovery, stats, identity.v1.ping) and ready. Its endpoints arrive with its capability.
 */
export async function startIdentity(env: IdentityEnv): Promise<Runtime<Record<string, never>>> {
  const rt = await startRuntime({
    service: "identity",
    version: pkg.version,
    description: "Free keys, wallet sign-in, license keys and OAuth (skeleton: capability pending)",
    env,
    database: {},
  });
  await rt.serve([]);
  return rt;
}
