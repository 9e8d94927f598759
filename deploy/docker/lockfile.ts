// What npm installs, read from package-lock.json: where Node finds a package from a folder, and
// which locations a workspace's production install holds.
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));

interface LockEntry {
  link?: boolean;
  resolved?: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

const lock = JSON.parse(readFileSync(path.join(root, "package-lock.json"), "utf8")) as { packages: Record<string, LockEntry> };

/**
 * Where Node finds package `name` from the folder `from` (a lockfile location such as
 * "services/payments" or "node_modules/viem"): the nearest node_modules/<name> up the tree,
 * links followed. Undefined when the lockfile has none.
 */
export function resolveInLock(from: string, name: string): string | undefined {
  let dir = from;
  for (;;) {
    const candidate = dir === "" ? `node_modules/${name}` : `${dir}/node_modules/${name}`;
    const entry = lock.packages[candidate];
    if (entry) return entry.link && entry.resolved ? entry.resolved : candidate;
    if (dir === "") return undefined;
    // Up one level: out of "<x>/node_modules/<pkg>" (or "<x>/node_modules/@scope/pkg"), or one folder.
    const m = /^(.*?)\/?node_modules\/(@[^/]+\/)?[^/]+$/.exec(dir);
    dir = m ? (m[1] ?? "") : path.posix.dirname(dir) === "." ? "" : path.posix.dirname(dir);
  }
}

/**
 * The lockfile locations `npm ci --omit=dev --workspace <workspace>` installs: the workspace and
 * everything its dependencies, optional dependencies and required peers reach.
 */
export function productionInstall(workspace: string): Set<string> {
  const seen = new Set<string>();
  const visit = (location: string) => {
    if (seen.has(location)) return;
    seen.add(location);
    const entry = lock.packages[location];
    if (!entry) return;
    const peers = Object.keys(entry.peerDependencies ?? {}).filter((p) => !entry.peerDependenciesMeta?.[p]?.optional);
    for (const dep of [...Object.keys(entry.dependencies ?? {}), ...Object.keys(entry.optionalDependencies ?? {}), ...peers]) {
      const found = resolveInLock(location, dep);
      if (found) visit(found);
    }
  };
  visit(workspace);
  return seen;
}
