// Builds one service for its container image: `tsx deploy/docker/bundle.ts <service> [outRoot]`.
//
// The workspace packages export TypeScript sources (package.json "exports" -> src/*.ts) and the
// repo has no compile step; in development tsx transpiles them with esbuild at load time. The
// image runs plain `node` with production dependencies only, so the same esbuild transform runs
// here once, ahead of time: the service and the @board/* packages it imports become one ESM file
// (plus a chunk per dynamically imported part, loaded when first asked for), and so do the npm
// packages it uses, but for a few that must stay installed (INSTALLED_PACKAGES).
//
// Layout (mirrors the repo, so every `new URL("../x", import.meta.url)` in the sources still
// points where it does in development):
//   <outRoot>/services/<service>/dist/main.js (+ .map, + chunks beside it)
//   <outRoot>/services/<service>/drizzle/       migrations, when the service owns a database
//   <outRoot>/services/<service>/data/          files read at run time (scanner-ingest's universe)
import { cp, readdir, rm, stat } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build, type Metafile, type Plugin } from "esbuild";

/** Folders beside src/ that a service reads at run time; copied next to dist/ when present. */
export const RUNTIME_ASSETS = ["drizzle", "data"] as const;

/** The Node version the bundle's syntax must run on: the lowest in package.json "engines". */
export const BUNDLE_TARGET = "node20";

export interface ServiceBundle {
  readonly service: string;
  /** <outRoot>/services/<service>/dist/main.js */
  readonly mainFile: string;
  /** The folders of RUNTIME_ASSETS that were copied. */
  readonly assets: readonly string[];
  /** esbuild's record of every input and import, for checks on what the image must install. */
  readonly metafile: Metafile;
}

/**
 * The npm packages a bundle imports from node_modules instead of carrying: those that find their
 * own files beside their modules at run time (PGlite's WebAssembly and data, pino's transport
 * workers, native addons). The image keeps only these in node_modules (deploy/docker/unused-installs.ts). Every other package is bundled in, for memory: an ESM package's index loads every
 * module it re-exports whatever is used (viem's ~1,250, every chain definition among them), and
 * esbuild keeps only what is called (payments' heap at rest 54 -> 40 MB, RSS 148 -> 110 MB).
 * A package is bundled once, from where Node would resolve it, so no package exists twice.
 * test/deploy/bundle.test.ts checks that none of these depends on a package that is bundled in.
 */
export const INSTALLED_PACKAGES: readonly string[] = [
  "@electric-sql/pglite",
  // A native addon: payments loads it with require() at run time (rails/native-ecdsa.ts).
  "secp256k1",
  "pino",
  "pino-pretty",
  "thread-stream",
  // The gateway's API reference (/docs) serves this package's prebuilt browser bundle and style
  // sheet, read from its folder at start: files, not modules, so they cannot be bundled in.
  "swagger-ui-dist",
  // What pino and pino-pretty share with bundled code (pg's split2; once), kept to one copy.
  "split2",
  "once",
  "wrappy",
];

/**
 * Optional packages that bundled code asks for only inside a try or a lazy import() and does without
 * when absent (pg's native client; siwe's ethers adapter): left as imports, and not installed.
 */
export const ABSENT_OPTIONAL_PACKAGES: readonly string[] = ["pg-native", "ethers"];

/** The package a bare import names: "viem/accounts" -> "viem", "@x402/evm/exact" -> "@x402/evm". */
export const packageNameOf = (specifier: string): string => specifier.split("/").slice(0, specifier.startsWith("@") ? 2 : 1).join("/");

/** Bundle everything but INSTALLED_PACKAGES and ABSENT_OPTIONAL_PACKAGES (and Node's built-ins, external by esbuild's platform). */
const installedPackagesStayExternal: Plugin = {
  name: "installed-packages-stay-external",
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => {
      const name = packageNameOf(args.path);
      return INSTALLED_PACKAGES.includes(name) || ABSENT_OPTIONAL_PACKAGES.includes(name) ? { path: args.path, external: true } : undefined;
    });
  },
};

export const repoRoot = fileURLToPath(new URL("../..", import.meta.url));

/** The services that ship as images: every folder under services/ with a src/main.ts. */
export async function listServices(root = repoRoot): Promise<string[]> {
  const dirs = await readdir(path.join(root, "services"), { withFileTypes: true });
  const found: string[] = [];
  for (const d of dirs) {
    if (d.isDirectory() && (await exists(path.join(root, "services", d.name, "src", "main.ts")))) found.push(d.name);
  }
  return found.sort();
}

export async function bundleService(service: string, outRoot: string, root = repoRoot): Promise<ServiceBundle> {
  const src = path.join(root, "services", service);
  if (!(await exists(path.join(src, "src", "main.ts")))) throw new Error(`unknown service "${service}": no services/${service}/src/main.ts`);
  const out = path.join(outRoot, "services", service);
  const dist = path.join(out, "dist");
  const mainFile = path.join(dist, "main.js");
  // Chunk names change with their content: an earlier build's would stay behind.
  await rm(dist, { recursive: true, force: true });
  // The operator's deploy step for the bus's streams ships in identity's image (the compose and Kubernetes jobs run it).
  const streamsCli = path.join(src, "src", "cli", "bus-streams.ts");
  const extra = (await exists(streamsCli)) ? [{ in: streamsCli, out: "bus-streams" }] : [];
  const result = await build({
    absWorkingDir: root,
    entryPoints: [{ in: path.join(src, "src", "main.ts"), out: "main" }, ...extra],
    outdir: dist,
    // A dynamic import() of the service's own code becomes a chunk that loads, with the packages
    // it imports, only when called (payments loads a rail's SDK only where that rail is
    // configured). Chunks sit beside main.js, so `new URL("../x", import.meta.url)` means the
    // same in every one of them.
    splitting: true,
    chunkNames: "[name]-[hash]",
    bundle: true,
    platform: "node",
    format: "esm",
    target: BUNDLE_TARGET,
    sourcemap: true,
    metafile: true,
    logLevel: "warning",
    // CommonJS packages bundled into ESM call require() for Node's built-ins: give them one.
    banner: { js: 'import { createRequire as __bundleCreateRequire } from "node:module"; const require = __bundleCreateRequire(import.meta.url);' },
    plugins: [installedPackagesStayExternal],
  });
  const assets: string[] = [];
  for (const asset of RUNTIME_ASSETS) {
    if (!(await exists(path.join(src, asset)))) continue;
    // Bundled in place (npm start): the assets are already beside dist/.
    if (path.resolve(out) !== path.resolve(src)) await cp(path.join(src, asset), path.join(out, asset), { recursive: true });
    assets.push(asset);
  }
  return { service, mainFile, assets, metafile: result.metafile };
}

async function exists(p: string): Promise<boolean> {
  return stat(p).then(
    () => true,
    () => false,
  );
}

const invokedDirectly = process.argv[1] !== undefined && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href;
if (invokedDirectly) {
  const [service, outRoot = repoRoot] = process.argv.slice(2);
  if (!service) {
    process.stderr.write(`usage: tsx deploy/docker/bundle.ts <service> [outRoot]\nservices: ${(await listServices()).join(", ")}\n`);
    process.exit(2);
  }
  const bundle = await bundleService(service, path.resolve(outRoot));
  process.stdout.write(`${bundle.service}: ${path.relative(process.cwd(), bundle.mainFile)} (+ ${bundle.assets.join(", ") || "no assets"})\n`);
}
