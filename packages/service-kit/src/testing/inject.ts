import { inject } from "vitest";
import { busEnvOf, busOptionsOf, type BusSeeds, type TestBusUser } from "./nats-server.js";

declare module "vitest" {
  export interface ProvidedContext {
    infra: { natsUrl: string; natsSeeds?: BusSeeds; databaseUrl: string; source: string };
  }
}

/** The infrastructure the integration project's global setup resolved once for all files. */
export const testInfra = () => inject("infra");

/** A service's bus settings in the suite: the URL and its own credential. */
export const busEnv = (principal: TestBusUser) => busEnvOf(testInfra().natsUrl, testInfra().natsSeeds, principal);

/** nats.js options for the test's own connection: the suite's admin by default, or a principal's credential. */
export const testBusOptions = (user: TestBusUser = "admin") => busOptionsOf(testInfra().natsUrl, testInfra().natsSeeds, user);
