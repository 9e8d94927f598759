// The services as `npm start` runs them: each bundled once per start with esbuild (about a second
// for all six), the same transform the images use (deploy/docker/bundle.ts), then run by plain
// node. Loading one file per service instead of transpiling hundreds at load time is most of a
// fast start on two cores.

import { stop } from "esbuild";
import { bundleService } from "../../deploy/docker/bundle.js";

/** service -> its bundle's main file (services/<name>/dist/main.js, beside its drizzle/ and data/). */
export async function bundleServices(root: string, services: readonly string[]): Promise<Map<string, string>> {
  try {
    const built = await Promise.all(services.map((s) => bundleService(s, root, root)));
    return new Map(built.map((b) => [b.service, b.mainFile]));
  } finally {
    // esbuild keeps a helper process (about 70 MB) alive for more builds; there are none.
    await stop();
  }
}
