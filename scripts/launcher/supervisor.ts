// What an orchestrator does for the stack's processes: a process that exits after it was
// ready is started again after a jittered, growing delay, said once in the console, while the
// rest keep serving; one that exits before it was ready is a start that failed (bad
// configuration, a port taken) and stops the whole stack with its error.

import type { ChildProcess } from "node:child_process";

/** First restart delay, and the ceiling the doubling stops at. */
const FIRST_DELAY_MS = 500;
const MAX_DELAY_MS = 30_000;
/** Up this long after a restart, the next failure starts the delays from the first again. */
const STABLE_AFTER_MS = 60_000;

export interface SupervisedProcess {
  readonly name: string;
  /** Starts it again after an exit; resolves once the new process is ready, rejects when it is not. */
  restart(): Promise<ChildProcess>;
}

export interface SupervisorHooks {
  say(line: string): void;
  /** A process that exited before it was ever ready: the start failed. */
  failed(name: string, why: string): void;
  /** True once the stack is stopping: exits are then expected. */
  stopping(): boolean;
  /** The running processes changed (one started or was replaced). */
  changed?(): void;
}

/** The delay before restart n (0-based): 0.5 s doubling to 30 s, each drawn from 50% to 150% of its step. */
export function restartDelayMs(attempt: number, random = Math.random): number {
  const step = Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** attempt);
  return Math.round(step * (0.5 + random()));
}

export class Supervisor {
  private readonly running = new Map<string, ChildProcess>();

  constructor(private readonly hooks: SupervisorHooks) {}

  /** The processes running now, by name (for stopping them). */
  get children(): ReadonlyMap<string, ChildProcess> {
    return this.running;
  }

  /**
   * Watches p, started as child. Until markReady(p.name) (or with ready: true) an exit fails
   * the start; after it, an exit restarts p with backoff for as long as the stack runs.
   */
  watchProcess(p: SupervisedProcess, child: ChildProcess, opts: { ready?: boolean } = {}): void {
    this.watch(p, child, opts.ready ?? false, 0);
  }

  private readonly ready = new Set<string>();

  markReady(name: string): void {
    this.ready.add(name);
  }

  private watch(p: SupervisedProcess, child: ChildProcess, wasReady: boolean, attempt: number): void {
    this.running.set(p.name, child);
    this.hooks.changed?.();
    if (wasReady) this.ready.add(p.name);
    const startedAt = Date.now();
    child.once("exit", (code, signal) => {
      if (this.hooks.stopping()) return;
      const how = signal ?? `code ${code}`;
      if (!this.ready.has(p.name)) {
        this.hooks.failed(p.name, `${p.name} exited before it was ready (${how})`);
        return;
      }
      const next = Date.now() - startedAt > STABLE_AFTER_MS ? 0 : attempt;
      void this.restart(p, how, next);
    });
  }

  private async restart(p: SupervisedProcess, how: string, attempt: number): Promise<void> {
    const delay = restartDelayMs(attempt);
    this.hooks.say(`${p.name} exited (${how}); restarting it in ${(delay / 1000).toFixed(1)} s, the rest keep serving`);
    for (let n = attempt; ; n++) {
      await new Promise((r) => setTimeout(r, n === attempt ? delay : restartDelayMs(n)));
      if (this.hooks.stopping()) return;
      try {
        const child = await p.restart();
        if (this.hooks.stopping()) {
          child.kill("SIGTERM");
          return;
        }
        this.hooks.say(`${p.name} is back`);
        this.watch(p, child, true, n + 1);
        return;
      } catch (err) {
        // Said once per outage: the first failure of a restart is news, the retries are not.
        if (n === attempt) this.hooks.say(`${p.name} did not start again (${err instanceof Error ? err.message.split("\n")[0] : String(err)}); retrying with backoff`);
      }
    }
  }
}
