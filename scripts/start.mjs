// `npm start`. The launcher is TypeScript (scripts/start.ts); transpiling it and every module it
// loads at run time (the development chains pull in hundreds) costs seconds of a two-core start.
// So it is bundled with esbuild (the @board/* workspace packages inlined, npm packages left as
// imports), rebuilt only when one of its inputs changed, and run by plain node.
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { bundleIsFresh, recordBundleInputs } from "./bundle-inputs.mjs";

const scripts = path.dirname(fileURLToPath(import.meta.url));
const root = path.join(scripts, "..");
const outfile = path.join(scripts, "dist", "start.mjs");
if (!bundleIsFresh(outfile)) {
  const { build, stop } = await import("esbuild");
  const result = await build({
    absWorkingDir: root,
    entryPoints: [path.join(scripts, "start.ts")],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    sourcemap: true,
    metafile: true,
    logLevel: "warning",
    plugins: [
      {
        name: "installed-packages-stay-external",
        setup(b) {
          b.onResolve({ filter: /^[^./]/ }, (args) =>
            args.path.startsWith("@board/") || path.isAbsolute(args.path) ? undefined : { path: args.path, external: true },
          );
        },
      },
    ],
  });
  await stop();
  recordBundleInputs(outfile, result.metafile, root, [fileURLToPath(import.meta.url), path.join(scripts, "bundle-inputs.mjs"), path.join(root, "package-lock.json")]);
}
await import(pathToFileURL(outfile).href);
