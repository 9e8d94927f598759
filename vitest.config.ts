import { defineConfig } from "vitest/config";

const serial = { pool: "forks" as const, fileParallelism: false, maxWorkers: 1 };

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "unit",
          include: ["{proto,packages,services}/**/test/**/*.test.ts"],
          exclude: ["**/node_modules/**", "**/test/integration/**"],
          // Files run side by side on a 2-core machine: vitest's 5 s and 10 s defaults were met
          // by a 565-name scan and a PGlite start under load (a timeout, not a finding).
          testTimeout: 20_000,
          hookTimeout: 30_000,
        },
      },
      {
        // Integration tests share one NATS and one Postgres server: one file at a time.
        test: {
          name: "integration",
          include: ["{proto,packages,services}/**/test/integration/**/*.test.ts", "test/integration/**/*.test.ts"],
          globalSetup: ["test/setup/infra.ts"],
          testTimeout: 30_000,
          hookTimeout: 60_000,
          ...serial,
        },
      },
      {
        // Containers, compose and Kubernetes manifests, checked with the real tools (no engine, no cluster).
        test: {
          name: "deploy",
          include: ["test/deploy/**/*.test.ts"],
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
      {
        test: {
          name: "e2e",
          include: ["test/e2e/**/*.test.ts"],
          globalSetup: ["test/setup/infra.ts"],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          ...serial,
        },
      },
    ],
  },
});
