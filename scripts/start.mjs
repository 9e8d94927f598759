// `npm start`. The launcher is TypeScript (scripts/start.ts); transpiling it and every module it
// loads at run time (the development chains pull in hundreds) costs seconds of a two-core start.
// So it is bundled once per start with esbuild (the @board/* workspace packages inlined, npm
// packages left as imports) and run by plain node.
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build, stop } from "esbuild";

const scripts = path.dirname(fileURLToPath(import.meta.url));
const outfile = path.join(scripts, "dist", "start.mjs");
await build({
  entryPoints: [path.join(scripts, "start.ts")],
  outfile,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  sourcemap: true,
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
await import(pathToFileURL(outfile).href);
