import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { builtinModules } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ABSENT_OPTIONAL_PACKAGES, bundleService, INSTALLED_PACKAGES, listServices, packageNameOf, type ServiceBundle } from "../../deploy/docker/bundle.js";
import { toolEnv } from "./env.js";
import { productionInstall, resolveInLock } from "../../deploy/docker/lockfile.js";
import { unusedInstalls } from "../../deploy/docker/unused-installs.js";
import { DATABASE_SERVICES, parseEnvFile, root, run, SERVICES, type ServiceName } from "./tools.js";

const readManifest = (dir: string) => JSON.parse(readFileSync(path.join(root, dir, "package.json"), "utf8")) as { name: string };

/** Workspace folders (proto, packages/x, services/x) by package name. */
const workspaces = new Map<string, string>();
for (const dir of ["proto", ...["packages", "services"].flatMap((d) => readdirSync(path.join(root, d)).map((x) => `${d}/${x}`))])
  if (existsSync(path.join(root, dir, "package.json"))) workspaces.set(readManifest(dir).name, dir);

/** The lockfile location of the installed package a bundled input file came from: "node_modules/viem/_esm/x.js" -> "node_modules/viem". */
const packageLocationOf = (file: string) => /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(file)?.[1];
const packageAt = (location: string) => packageNameOf(location.slice(location.lastIndexOf("node_modules/") + "node_modules/".length));
const isBuiltin = (specifier: string) => specifier.startsWith("node:") || builtinModules.includes(specifier.split("/")[0] ?? "");

let out: string;
const bundles = new Map<ServiceName, ServiceBundle>();
beforeAll(async () => {
  out = mkdtempSync(path.join(tmpdir(), "bundle-"));
  for (const service of SERVICES) bundles.set(service, await bundleService(service, out));
  // The image's layout: node_modules at the root and beside the service, package.json (type: module) beside dist/.
  symlinkSync(path.join(root, "node_modules"), path.join(out, "node_modules"));
  for (const service of SERVICES) {
    copyFileSync(path.join(root, "services", service, "package.json"), path.join(out, "services", service, "package.json"));
    const own = path.join(root, "services", service, "node_modules");
    if (existsSync(own)) symlinkSync(own, path.join(out, "services", service, "node_modules"));
  }
}, 120_000);
afterAll(() => rmSync(out, { recursive: true, force: true }));

const bundleOf = (service: ServiceName) => {
  const b = bundles.get(service);
  if (!b) throw new Error(`no bundle for ${service}`);
  return b;
};

/** Runs a service's bundle with plain node (no tsx, no TypeScript) and this environment only. */
function runBundle(service: ServiceName, env: Record<string, string>) {
  return run(process.execPath, ["--enable-source-maps", path.join("dist", "main.js")], { cwd: path.join(out, "services", service), env: { ...toolEnv, ...env } });
}

test("the deploy files know every service: the six under services/ are the six shipped", async () => {
  expect(await listServices()).toEqual([...SERVICES]);
});

describe.each(SERVICES)("%s image bundle", (service) => {
  test("is one ESM file (and the chunks it loads, beside it) with the workspace code inside and its run-time folders beside it", () => {
    const b = bundleOf(service);
    expect(existsSync(b.mainFile)).toBe(true);
    const dist = path.relative(root, path.dirname(b.mainFile));
    expect(b.metafile.outputs[path.relative(root, b.mainFile)], "esbuild's record of the bundle").toBeDefined();
    const files = Object.keys(b.metafile.outputs).filter((f) => f.endsWith(".js"));
    for (const file of files) {
      expect(path.dirname(file), `${file} beside main.js`).toBe(dist);
      expect(existsSync(path.join(root, file)), file).toBe(true);
      // Workspace code is inside; what is not external is one of the bundle's own files.
      const leftover = (b.metafile.outputs[file]?.imports ?? []).filter((i) => i.path.startsWith("@board/") || (!i.external && !files.includes(i.path)));
      expect(leftover, file).toEqual([]);
    }
    const dir = path.dirname(path.dirname(b.mainFile));
    if (DATABASE_SERVICES.includes(service)) expect(existsSync(path.join(dir, "drizzle", "meta", "_journal.json"))).toBe(true);
    else expect(b.assets).not.toContain("drizzle");
    if (service === "scanner-ingest") expect(existsSync(path.join(dir, "data", "universe"))).toBe(true);
  });

  test("imports only packages that its production install provides, at the versions development resolves", () => {
    const b = bundleOf(service);
    const location = `services/${service}`;
    const installed = productionInstall(location);
    const problems: string[] = [];
    for (const [file, input] of Object.entries(b.metafile.inputs)) {
      // A file of an npm package bundled in belongs to that package's copy in node_modules.
      const owner = file.startsWith("node_modules/")
        ? packageLocationOf(file)
        : [...workspaces.values()].filter((ws) => file.startsWith(`${ws}/`)).sort((a, c) => c.length - a.length)[0];
      if (!owner) {
        problems.push(`${file}: outside every workspace`);
        continue;
      }
      const bundledPackage = owner.includes("node_modules/");
      if (bundledPackage && INSTALLED_PACKAGES.includes(packageAt(owner))) problems.push(`${file}: ${packageAt(owner)} is bundled in but meant to stay installed`);
      // An npm package is bundled from the build stage's full install, where development finds it.
      if (!bundledPackage && !installed.has(owner)) problems.push(`${file}: ${owner} is not part of the production install of ${location}`);
      for (const imp of input.imports) {
        // <runtime> is esbuild's own helper code, not a package.
        if (!imp.external || isBuiltin(imp.path) || imp.path === "<runtime>") continue;
        const name = packageNameOf(imp.path);
        if (ABSENT_OPTIONAL_PACKAGES.includes(name)) {
          if (imp.kind !== "require-call" && imp.kind !== "dynamic-import") problems.push(`${file} imports the optional ${name} unconditionally (${imp.kind})`);
          if (resolveInLock(location, name)) problems.push(`${name} is installed now: take it off ABSENT_OPTIONAL_PACKAGES`);
          continue;
        }
        // The bundle sits in services/<name>/dist: Node looks for packages from there, not from the source's folder.
        const fromBundle = resolveInLock(location, name);
        if (!fromBundle || !installed.has(fromBundle)) problems.push(`${file} imports ${name}, which the production install of ${location} lacks`);
        else if (fromBundle !== resolveInLock(owner, name)) problems.push(`${file} imports ${name}: ${resolveInLock(owner, name)} in development, ${fromBundle} in the image`);
      }
    }
    expect(problems).toEqual([]);
  });

  // A package bundled in beside an installed copy of itself would be two modules with two sets of
  // classes (and instanceof would tell them apart): no installed package a bundle imports may
  // depend on a package the bundle carries.
  test("imports no installed package that would load a second copy of a package bundled in", () => {
    const b = bundleOf(service);
    const location = `services/${service}`;
    const carried = new Set(Object.keys(b.metafile.inputs).flatMap((f) => packageLocationOf(f) ?? []));
    const external = new Set(
      Object.values(b.metafile.outputs).flatMap((o) => o.imports.filter((i) => i.external && !isBuiltin(i.path)).map((i) => packageNameOf(i.path))),
    );
    const outside = [...external].filter((name) => !INSTALLED_PACKAGES.includes(name) && !ABSENT_OPTIONAL_PACKAGES.includes(name));
    expect(outside, "external imports outside INSTALLED_PACKAGES and ABSENT_OPTIONAL_PACKAGES").toEqual([]);
    const problems: string[] = [];
    for (const name of [...external].filter((n) => INSTALLED_PACKAGES.includes(n))) {
      const at = resolveInLock(location, name);
      if (!at) problems.push(`${name} is not installed for ${location}`);
      for (const dep of at ? productionInstall(at) : []) if (carried.has(dep)) problems.push(`${name} loads ${dep}, which the bundle carries too`);
    }
    expect(problems).toEqual([]);
  });

  // The image deletes from its production install what unused-installs lists (the Dockerfile).
  test("the image's pruned node_modules keeps every package the bundle imports, and drops the ones it carries", () => {
    const b = bundleOf(service);
    const location = `services/${service}`;
    const unused = new Set(unusedInstalls(service));
    const imported = new Set(
      Object.values(b.metafile.outputs).flatMap((o) => o.imports.filter((i) => i.external && !isBuiltin(i.path)).map((i) => packageNameOf(i.path))),
    );
    for (const name of [...imported].filter((n) => INSTALLED_PACKAGES.includes(n))) {
      const at = resolveInLock(location, name)!;
      for (const dep of productionInstall(at)) expect(unused.has(dep), `${name} needs ${dep}`).toBe(false);
    }
    // What the bundle carries goes, unless a package left installed needs it too.
    const installed = productionInstall(location);
    const needed = new Set(INSTALLED_PACKAGES.flatMap((n) => resolveInLock(location, n) ?? []).filter((at) => installed.has(at)).flatMap((at) => [...productionInstall(at)]));
    const carried = new Set(Object.keys(b.metafile.inputs).flatMap((f) => packageLocationOf(f) ?? []));
    for (const l of carried) if (installed.has(l) && !needed.has(l)) expect(unused.has(l), `${l} is carried by the bundle`).toBe(true);
  });

  // Chunks load when first asked for (a payment rail's SDK only where that rail is configured):
  // each must load under plain node too, not only the ones a start-up reaches.
  test("every chunk loads under plain node", () => {
    const dist = path.dirname(bundleOf(service).mainFile);
    // Entry points run when loaded (the service, identity's bus-streams deploy step): only chunks are loaded here.
    const entries = new Set(["main.js", "bus-streams.js"]);
    const chunks = readdirSync(dist).filter((f) => f.endsWith(".js") && !entries.has(f));
    const urls = chunks.map((f) => pathToFileURL(path.join(dist, f)).href);
    const script = `for (const u of ${JSON.stringify(urls)}) { try { await import(u) } catch (e) { console.log(u + ": " + e.message) } }`;
    const res = run(process.execPath, ["--input-type=module", "-e", script], { cwd: dist, env: toolEnv });
    expect(res.stderr).toBe("");
    expect(res.stdout).toBe("");
    expect(res.status).toBe(0);
  });

  test("loads under plain node and stops on a bad configuration with exit code 2", () => {
    const res = runBundle(service, { HEALTH_PORT: "not-a-port" });
    expect(res.stderr).toContain(`${service}: invalid configuration`);
    expect(res.stderr).toContain("HEALTH_PORT");
    expect(res.status).toBe(2);
  });
});

test("identity's bundle refuses the IDENTITY_SECRET placeholder of .env.example without printing it", () => {
  const example = parseEnvFile(readFileSync(path.join(root, ".env.example"), "utf8"));
  const res = runBundle("identity", { IDENTITY_SECRET: example.IDENTITY_SECRET ?? "", DATABASE_URL: "postgres://board:x@127.0.0.1:1/board" });
  expect(res.status).toBe(2);
  expect(res.stderr).toMatch(/IDENTITY_SECRET: must be at least 32 characters/);
  expect(res.stderr).not.toContain(example.IDENTITY_SECRET);
});
