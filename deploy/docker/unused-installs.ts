// The image's production install, less what the bundle carries: `tsx deploy/docker/unused-installs.ts <service>`
// prints the node_modules locations (one a line, relative to the repo root) that `npm ci --omit=dev
// --workspace services/<service>` installs and the service never loads, for the Dockerfile to
// delete. A bundle carries its npm packages but INSTALLED_PACKAGES (deploy/docker/bundle.ts);
// those, and everything they depend on, stay.
import path from "node:path";
import { pathToFileURL } from "node:url";
import { INSTALLED_PACKAGES } from "./bundle.js";
import { productionInstall, resolveInLock } from "./lockfile.js";

export function unusedInstalls(service: string): string[] {
  const location = `services/${service}`;
  const installed = productionInstall(location);
  const kept = new Set<string>();
  for (const name of INSTALLED_PACKAGES) {
    const at = resolveInLock(location, name);
    if (at !== undefined && installed.has(at)) for (const l of productionInstall(at)) kept.add(l);
  }
  return [...installed].filter((l) => l.includes("node_modules/") && !kept.has(l)).sort();
}

const invokedDirectly = process.argv[1] !== undefined && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href;
if (invokedDirectly) {
  const service = process.argv[2];
  if (!service) {
    process.stderr.write("usage: tsx deploy/docker/unused-installs.ts <service>\n");
    process.exit(2);
  }
  const unused = unusedInstalls(service);
  process.stdout.write(unused.length > 0 ? `${unused.join("\n")}\n` : "");
}
