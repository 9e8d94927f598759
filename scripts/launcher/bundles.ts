// The services as `npm start` runs them: each bundled with esbuild, the same transform the images
// use (deploy/docker/bundle.ts), then run by plain node. Loading one file per service instead of
// transpiling hundreds at load time is most of a fast start on two cores; a bundle whose inputs
// have not changed since it was built is reused (scripts/bundle-inputs.mjs).

import path from "node:path";
import { bundleIsFresh, recordBundleInputs } from "../bundle-inputs.mjs";

/** service -> its bundle's main file (services/<name>/dist/main.js, beside its drizzle/ and data/). */
export async function bundleServices(root: string, services: readonly string[]): Promise<Map<string, string>> {
  const mainFile = (s: string) => path.join(root, "services", s, "dist", "main.js");
  const stale = services.filter((s) => !bundleIsFresh(mainFile(s)));
  if (stale.length > 0) {
    const { stop } = await import("esbuild");
    const { bundleService } = await import("../../deploy/docker/bundle.js");
    const shaping = [path.join(root, "deploy", "docker", "bundle.ts"), path.join(root, "package-lock.json")];
    try {
      await Promise.all(
        stale.map(async (s) => {
          const b = await bundleService(s, root, root);
          recordBundleInputs(b.mainFile, b.metafile, root, shaping);
        }),
      );
    } finally {
      // esbuild keeps a helper process (about 70 MB) alive for more builds; there are none.
      await stop();
    }
  }
  return new Map(services.map((s) => [s, mainFile(s)]));
}

