import { resolveTestInfra } from "@board/service-kit/testing";
import type { TestProject } from "vitest/node";

/** Resolves the real NATS and Postgres once and hands them to every test file. */
export default async function setup(project: TestProject) {
  const infra = await resolveTestInfra();
  project.provide("infra", { natsUrl: infra.natsUrl, ...(infra.natsSeeds ? { natsSeeds: infra.natsSeeds } : {}), databaseUrl: infra.databaseUrl, source: infra.source });
  return () => infra.stop();
}
