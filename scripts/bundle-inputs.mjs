// A bundle `npm start` built before is reused while none of the files it was built from changed:
// esbuild's metafile lists them, kept beside the bundle as <bundle>.inputs.json. Skipping the
// build saves about three seconds of a two-core start. Plain JavaScript: scripts/start.mjs uses
// it before anything is bundled.
import { readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";

const inputsFile = (outfile) => `${outfile}.inputs.json`;

/** True when `outfile` exists and is newer than every file recorded as its input. */
export function bundleIsFresh(outfile) {
  let built;
  let inputs;
  try {
    built = statSync(outfile).mtimeMs;
    inputs = JSON.parse(readFileSync(inputsFile(outfile), "utf8")).inputs;
  } catch {
    return false;
  }
  if (!Array.isArray(inputs) || inputs.length === 0) return false;
  try {
    return inputs.every((file) => statSync(file).mtimeMs <= built);
  } catch {
    return false; // an input is gone: build again
  }
}

/**
 * Records what `outfile` was built from: esbuild's inputs (relative to `workingDir`) and `extra`
 * files that shape the build without being bundled (the build script, the lockfile).
 */
export function recordBundleInputs(outfile, metafile, workingDir, extra = []) {
  const inputs = [...Object.keys(metafile.inputs).map((p) => path.resolve(workingDir, p)), ...extra.map((p) => path.resolve(p))];
  writeFileSync(inputsFile(outfile), `${JSON.stringify({ inputs }, null, 1)}\n`);
}
