import { defineConfig } from "vitest/config";

// `npm run test:containers`: the images built and the stack served from containers on podman
// (README "Containers on podman"). Not part of `npm test`: it needs podman and docker-compose
// and takes minutes; CI runs it after the other suites when podman is installed.
export default defineConfig({
  test: {
    name: "containers",
    root: new URL("../..", import.meta.url).pathname,
    include: ["test/containers/**/*.test.ts"],
    globalSetup: ["test/containers/setup.ts"],
    testTimeout: 180_000,
    hookTimeout: 3_600_000,
    pool: "forks",
    fileParallelism: false,
    maxWorkers: 1,
  },
});
