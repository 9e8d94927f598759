import type { BusPrincipal } from "@board/proto";
import { busEnvOf, busOptionsOf, TestNatsServer, type BusSeeds } from "@board/service-kit/testing";
import type { ConnectionOptions } from "nats";
import { findNatsServer, NO_NATS_MESSAGE } from "../scripts/launcher/nats.js";
import type { BenchEnv } from "./env.js";

export interface BenchInfra {
  natsUrl: string;
  /** The bus's credentials (a private nats-server has authorization on, as deployments do); none for NATS_URL. */
  natsSeeds?: BusSeeds;
  databaseUrl: string;
  /** "environment" (NATS_URL) or "private nats-server". */
  nats: string;
  /** PATH for the service processes the bench starts. */
  path: string;
  /** The service run under --cpu-prof, and where its profile goes (BENCH_CPU_PROFILE). */
  cpuProfile?: { service: string; dir: string };
  stop(): Promise<void>;
}

/** A service's bus settings on the bench's bus: its URL and own credential. */
export const benchBusEnv = (infra: BenchInfra, principal: BusPrincipal) => busEnvOf(infra.natsUrl, infra.natsSeeds, principal);

/** The bench's own connection (publishing boards, asking services): the unrestricted test user. */
export const benchBusOptions = (infra: BenchInfra): ConnectionOptions => busOptionsOf(infra.natsUrl, infra.natsSeeds);

/**
 * NATS_URL when set, else a private nats-server on a free port with its store in a temp dir
 * and authorization on (each service on its own credential, as deployed); Postgres from DATABASE_URL.
 */
export async function benchInfra(env: BenchEnv): Promise<BenchInfra> {
  const cpuProfile = env.BENCH_CPU_PROFILE ? { cpuProfile: { service: env.BENCH_CPU_PROFILE, dir: env.BENCH_CPU_PROFILE_DIR } } : {};
  if (env.NATS_URL) return { natsUrl: env.NATS_URL, databaseUrl: env.DATABASE_URL, nats: "environment", path: env.PATH, ...cpuProfile, stop: async () => {} };
  const bin = findNatsServer();
  if (!bin) throw new Error(NO_NATS_MESSAGE);
  const nats = await TestNatsServer.start(bin);
  return {
    natsUrl: nats.url,
    natsSeeds: nats.seeds,
    databaseUrl: env.DATABASE_URL,
    nats: "private nats-server (authorization on)",
    path: env.PATH,
    ...cpuProfile,
    stop: () => nats.stop(),
  };
}
