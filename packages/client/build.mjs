// Builds the published @board/client: JavaScript bundles (esbuild; @board/proto's code inlined,
// every npm dependency left an import) and declarations (tsc; proto's beside them in dist/proto).
//
// In the repository the package's exports name its TypeScript source, so the workspace (tests,
// `npm run buy`, the launcher's bundle) runs from source with nothing built. `npm pack` runs
// `--pack`: build, then package.json rewritten to what is published (exports to dist/, no
// @board/proto dependency, not private); its postpack (`--unpack`) puts the workspace one back.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.join(here, "..", "..");
const dist = path.join(here, "dist");
const manifest = path.join(here, "package.json");
const kept = path.join(here, "package.json.workspace");
const tsc = path.join(root, "node_modules", "typescript", "bin", "tsc");

/** Every module the package's exports and bin name, by its source path. */
const ENTRIES = ["src/browser.ts", "src/index.ts", "src/node/dev-wallets.ts", "src/cli/buy.ts", "src/cli/bin.ts", "src/cli/mcp-bin.ts"];

async function buildDist() {
  fs.rmSync(dist, { recursive: true, force: true });
  const result = await build({
    absWorkingDir: here,
    entryPoints: ENTRIES,
    outdir: "dist",
    outbase: "src",
    bundle: true,
    splitting: true,
    chunkNames: "chunks/[name]-[hash]",
    // neutral: the browser entry must not lean on Node; node: imports stay imports (Node entry only).
    platform: "neutral",
    format: "esm",
    target: "es2022",
    metafile: true,
    logLevel: "warning",
    plugins: [
      {
        name: "npm-dependencies-stay-external",
        setup(b) {
          const protoSrc = path.join(root, "proto", "src") + path.sep;
          b.onResolve({ filter: /.*/ }, async (args) => {
            if (args.pluginData === "again") return undefined;
            const inProto = args.path === "@board/proto" || args.importer.startsWith(protoSrc);
            if (!inProto) return /^[^./]/.test(args.path) ? { path: args.path, external: true } : undefined;
            if (args.path.startsWith("node:") || /^[^./@]|^@(?!board\/proto)/.test(args.path)) return { path: args.path, external: true };
            // proto's modules only declare schemas and functions: what the client does not use is
            // dropped (its proof and view-body code import node:crypto and node:zlib).
            const resolved = await b.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: "again" });
            return { ...resolved, sideEffects: false };
          });
        },
      },
    ],
  });
  // Declarations: proto's first, so the client's resolve @board/proto to them (tsconfig.build.json).
  const base = ["--declaration", "--emitDeclarationOnly", "--skipLibCheck", "--strict", "--target", "es2022", "--module", "nodenext", "--moduleResolution", "nodenext", "--types", "node"];
  execFileSync(process.execPath, [tsc, ...base, "--rootDir", path.join(root, "proto", "src"), "--outDir", path.join(dist, "proto"), path.join(root, "proto", "src", "index.ts")], { stdio: "inherit" });
  execFileSync(process.execPath, [tsc, "-p", path.join(here, "tsconfig.build.json")], { stdio: "inherit" });
  for (const file of declarations(dist)) {
    if (file.startsWith(path.join(dist, "proto") + path.sep)) continue;
    let rel = path.relative(path.dirname(file), path.join(dist, "proto", "index.js")).split(path.sep).join("/");
    if (!rel.startsWith(".")) rel = `./${rel}`;
    const text = fs.readFileSync(file, "utf8");
    fs.writeFileSync(file, text.replaceAll('"@board/proto"', JSON.stringify(rel)));
  }
  return result.metafile;
}

function declarations(dir) {
  return fs.readdirSync(dir, { withFileTypes: true, recursive: true }).filter((e) => e.isFile() && e.name.endsWith(".d.ts")).map((e) => path.join(e.parentPath, e.name));
}

/** The bare imports left in the JavaScript (npm packages and node: modules). */
function externals(metafile) {
  const found = new Set();
  for (const output of Object.values(metafile.outputs)) for (const imp of output.imports) if (imp.external) found.add(imp.path);
  return found;
}

const packageOf = (spec) => (spec.startsWith("@") ? spec.split("/").slice(0, 2).join("/") : spec.split("/")[0]);

/** `./src/x.ts` -> `{ types: ./dist/x.d.ts, default: ./dist/x.js }`, through conditions. */
function published(target) {
  if (typeof target === "string") {
    const js = target.replace(/^\.\/src\//, "./dist/").replace(/\.ts$/, ".js");
    return { types: js.replace(/\.js$/, ".d.ts"), default: js };
  }
  return Object.fromEntries(Object.entries(target).map(([condition, t]) => [condition, published(t)]));
}

const mode = process.argv[2];
if (mode === "--unpack") {
  if (fs.existsSync(kept)) fs.renameSync(kept, manifest);
  fs.rmSync(path.join(here, "LICENSE"), { force: true });
} else {
  if (mode === "--pack" && fs.existsSync(kept)) throw new Error(`${kept} exists: a pack stopped half-way; move it back over package.json first`);
  const metafile = await buildDist();
  const pkg = JSON.parse(fs.readFileSync(manifest, "utf8"));
  const proto = JSON.parse(fs.readFileSync(path.join(root, "proto", "package.json"), "utf8"));
  const dependencies = { ...pkg.dependencies };
  delete dependencies["@board/proto"]; // Inlined in the bundle, its declarations in dist/proto.
  for (const spec of externals(metafile)) {
    if (spec.startsWith("node:")) continue;
    const name = packageOf(spec);
    if (dependencies[name]) continue;
    if (proto.dependencies?.[name]) dependencies[name] = proto.dependencies[name];
    else throw new Error(`the bundle imports ${spec}, which is not a dependency of @board/client or @board/proto`);
  }
  if (mode === "--pack") {
    fs.copyFileSync(manifest, kept);
    fs.copyFileSync(path.join(root, "LICENSE"), path.join(here, "LICENSE"));
    const out = { ...pkg, exports: published(pkg.exports), dependencies: Object.fromEntries(Object.entries(dependencies).sort()) };
    delete out.scripts;
    delete out.private;
    fs.writeFileSync(manifest, `${JSON.stringify(out, null, 2)}\n`);
  }
}
