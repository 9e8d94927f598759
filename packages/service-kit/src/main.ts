import { ConfigError } from "./env.js";

/**
 * Runs a service's start function as a process: a bad configuration prints its readable
 * message and exits 2; any other start failure exits 1.
 */
export function runMain(start: () => Promise<{ lifecycle: { handleSignals(): void } }>): void {
  start().then(
    (rt) => rt.lifecycle.handleSignals(),
    (err: unknown) => {
      if (err instanceof ConfigError) {
        process.stderr.write(`${err.message}\n`);
        process.exit(2);
      }
      process.stderr.write(`failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}
