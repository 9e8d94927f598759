import type { Logger } from "./log.js";

type Hook = () => Promise<void> | void;

const SHUTDOWN_GRACE_MS = 8000;

/**
 * Stops a service in the reverse order it started: hooks registered last run first.
 * SIGINT and SIGTERM both stop it; a second signal forces the exit. A stop that has not
 * finished within the grace period gives up on the hook still running (named in the log):
 * a process stopped by a signal then exits 1; a caller that stops a service in its own
 * process (a test, the launcher) is answered and its process left alone.
 */
export class Lifecycle {
  private readonly hooks: { name: string; run: Hook }[] = [];
  private stopping: Promise<boolean> | null = null;

  constructor(
    private readonly log: Logger,
    private readonly graceMs = SHUTDOWN_GRACE_MS,
  ) {}

  onStop(name: string, run: Hook): void {
    this.hooks.push({ name, run });
  }

  handleSignals(): void {
    for (const sig of ["SIGINT", "SIGTERM"] as const) {
      process.on(sig, () => {
        if (this.stopping) process.exit(1);
        this.log.info({ signal: sig }, "stopping");
        void this.stopAll().then((complete) => process.exit(complete ? 0 : 1));
      });
    }
  }

  async stop(): Promise<void> {
    await this.stopAll();
  }

  /** Runs the hooks once; true when they all finished within the grace period. */
  private stopAll(): Promise<boolean> {
    this.stopping ??= (async () => {
      let running = "";
      const hooks = (async () => {
        for (const hook of [...this.hooks].reverse()) {
          running = hook.name;
          try {
            await hook.run();
          } catch (err) {
            this.log.warn({ err, hook: hook.name }, "stop hook failed");
          }
        }
        return true;
      })();
      let timer: NodeJS.Timeout | undefined;
      const grace = new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), this.graceMs);
        timer.unref();
      });
      const complete = await Promise.race([hooks, grace]);
      clearTimeout(timer);
      if (!complete) this.log.error({ hook: running, graceMs: this.graceMs }, "shutdown took too long; gave up waiting for a stop hook");
      return complete;
    })();
    return this.stopping;
  }
}
