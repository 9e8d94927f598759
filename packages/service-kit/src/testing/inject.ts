import { inject } from "vitest";

declare module "vitest" {
  export interface ProvidedContext {
    infra: { natsUrl: string; databaseUrl: string; source: string };
  }
}

/** The infrastructure the integration project's global setup resolved once for all files. */
export const testInfra = () => inject("infra");
