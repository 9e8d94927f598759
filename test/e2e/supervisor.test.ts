import type { ChildProcess } from "node:child_process";
import { EventEmitter } from "node:events";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { restartDelayMs, Supervisor, type SupervisedProcess } from "../../scripts/launcher/supervisor.js";

// The launcher's supervisor on its own: what it does when a process exits, on a clock the test
// moves. The processes are event emitters standing in for children (the supervisor only hears
// their exit and may kill one); the whole launcher with real processes is default-stack.test.ts.

class Child extends EventEmitter {
  killed = false;
  kill(): boolean {
    this.killed = true;
    return true;
  }
  exit(code = 1): void {
    this.emit("exit", code, null);
  }
}
const asChild = (c: Child) => c as unknown as ChildProcess;

function harness() {
  const said: string[] = [];
  const failed: string[] = [];
  let stopping = false;
  const supervisor = new Supervisor({ say: (l) => said.push(l), failed: (name, why) => failed.push(`${name}: ${why}`), stopping: () => stopping });
  return { said, failed, supervisor, stop: () => (stopping = true) };
}

/** A process whose restarts fail `failures` times, then give a new child; each restart recorded with its time. */
function process(name: string, failures = 0) {
  const restarts: number[] = [];
  let children: Child[] = [];
  const p: SupervisedProcess = {
    name,
    restart: () => {
      restarts.push(Date.now());
      if (restarts.length <= failures) return Promise.reject(new Error(`port taken\nstack`));
      const c = new Child();
      children.push(c);
      return Promise.resolve(asChild(c));
    },
  };
  return { p, restarts, children: () => children, reset: () => (children = []) };
}

beforeEach(() => {
  vi.useFakeTimers({ now: new Date("2026-11-27T12:00:00Z") });
});
afterEach(() => {
  vi.useRealTimers();
});

describe("the launcher's supervisor", () => {
  it("draws each restart delay from 50% to 150% of a step that doubles from 0.5 s to 30 s", () => {
    const steps = [500, 1000, 2000, 4000, 8000, 16000, 30000, 30000];
    steps.forEach((step, n) => {
      expect(restartDelayMs(n, () => 0)).toBe(step * 0.5);
      expect(restartDelayMs(n, () => 0.5)).toBe(step);
      expect(restartDelayMs(n, () => 0.999999)).toBe(Math.round(step * 1.499999));
    });
  });

  it("restarts a process that exits after it was ready, says so once, and leaves the others running", async () => {
    const { said, failed, supervisor } = harness();
    const board = process("board");
    const gateway = process("gateway");
    const first = new Child();
    const other = new Child();
    supervisor.watchProcess(board.p, asChild(first), { ready: true });
    supervisor.watchProcess(gateway.p, asChild(other), { ready: true });
    first.exit(137);
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(/^board exited \(code 137\); restarting it in [0-9.]+ s, the rest keep serving$/);
    await vi.advanceTimersByTimeAsync(760);
    expect(board.restarts).toHaveLength(1);
    expect(said).toEqual([said[0], "board is back"]);
    expect(supervisor.children.get("board")).toBe(board.children()[0]);
    expect(supervisor.children.get("gateway")).toBe(other);
    expect(other.killed).toBe(false);
    expect(failed).toEqual([]);
  });

  it("a restart that fails is retried with growing delays and said once per outage", async () => {
    const { said, supervisor } = harness();
    const metering = process("metering", 3);
    const first = new Child();
    supervisor.watchProcess(metering.p, asChild(first), { ready: true });
    const exitAt = Date.now();
    first.exit();
    // Delays: 0.5 s, then 1, 2 and 4 s steps (each 50-150%): back within 0.75 + 1.5 + 3 + 6 s.
    await vi.advanceTimersByTimeAsync(11_300);
    expect(metering.restarts).toHaveLength(4);
    const gaps = metering.restarts.map((t, i) => t - (i === 0 ? exitAt : metering.restarts[i - 1]!));
    [500, 1000, 2000, 4000].forEach((step, i) => {
      expect(gaps[i]).toBeGreaterThanOrEqual(step * 0.5);
      expect(gaps[i]).toBeLessThanOrEqual(step * 1.5);
    });
    expect(said.filter((l) => l.startsWith("metering did not start again"))).toEqual(["metering did not start again (port taken); retrying with backoff"]);
    expect(said.at(-1)).toBe("metering is back");
  });

  it("a process that fails again soon after coming back waits longer; one that stayed up a minute starts from the first delay", async () => {
    const { supervisor } = harness();
    const identity = process("identity");
    supervisor.watchProcess(identity.p, asChild(new Child()), { ready: true });
    (supervisor.children.get("identity") as unknown as Child).exit();
    await vi.advanceTimersByTimeAsync(760);
    expect(identity.restarts).toHaveLength(1);
    // Back, and down again within seconds: the next delay is the second step (0.5 to 1.5 s).
    const downAt = Date.now();
    identity.children()[0]!.exit();
    await vi.advanceTimersByTimeAsync(490);
    expect(identity.restarts).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1020);
    expect(identity.restarts).toHaveLength(2);
    expect(identity.restarts[1]! - downAt).toBeGreaterThanOrEqual(500);
    // Up more than a minute: the next failure starts from the first step again (0.25 to 0.75 s).
    await vi.advanceTimersByTimeAsync(61_000);
    identity.children()[1]!.exit();
    await vi.advanceTimersByTimeAsync(760);
    expect(identity.restarts).toHaveLength(3);
  });

  it("a process that exits before it was ready fails the start and is not restarted", async () => {
    const { failed, said, supervisor } = harness();
    const payments = process("payments");
    const child = new Child();
    supervisor.watchProcess(payments.p, asChild(child));
    child.exit(1);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(failed).toEqual(["payments: payments exited before it was ready (code 1)"]);
    expect(payments.restarts).toHaveLength(0);
    expect(said).toEqual([]);
  });

  it("exits while the stack stops are expected: nothing restarted, a child started meanwhile is stopped", async () => {
    const h = harness();
    const board = process("board");
    const child = new Child();
    h.supervisor.watchProcess(board.p, asChild(child), { ready: true });
    child.exit();
    h.stop();
    await vi.advanceTimersByTimeAsync(2_000);
    expect(board.restarts).toHaveLength(0);
    const quiet = harness();
    const other = new Child();
    quiet.supervisor.watchProcess(board.p, asChild(other), { ready: true });
    quiet.stop();
    other.exit();
    expect(quiet.said).toEqual([]);
  });
});
