import type { Metafile } from "esbuild";

/** True when `outfile` exists and is newer than every file recorded as its input. */
export function bundleIsFresh(outfile: string): boolean;
/** Records what `outfile` was built from (esbuild's inputs and `extra` files that shape the build). */
export function recordBundleInputs(outfile: string, metafile: Metafile, workingDir: string, extra?: readonly string[]): void;
