import type { Logger } from "./log.js";

type Hook = () => Promise<void> | void;

const SHUTDOWN_GRACE_MS = 8000;

/**
 * Stops a service in the reverse order it started: hooks registered last run first.
 * SIGINT and SIGTERM both stop it; a second signal, or the grace period, forces the exit.
 */
export class Lifecycle {
  private readonly hooks: { name: string; run: Hook }[] = [];
  private stopping: Promise<void> | null = null;

  constructor(private readonly log: Logger) {}

  onStop(name: string, run: Hook): void {
    this.hooks.push({ name, run });
  }

  handleSignals(): void {
    for (const sig of ["SIGINT", "SIGTERM"] as const) {
      process.on(sig, () => {
        if (this.stopping) process.exit(1);
        this.log.info({ signal: sig }, "stopping");
        void this.stop().then(() => process.exit(0));
      });
    }
  }

  stop(): Promise<void> {
    this.stopping ??= (async () => {
      const timer = setTimeout(() => {
        this.log.error("shutdown took too long; exiting");
        process.exit(1);
      }, SHUTDOWN_GRACE_MS);
      timer.unref();
      for (const hook of [...this.hooks].reverse()) {
        try {
          await hook.run();
        } catch (err) {
          this.log.warn({ err, hook: hook.name }, "stop hook failed");
        }
      }
      clearTimeout(timer);
    })();
    return this.stopping;
  }
}
