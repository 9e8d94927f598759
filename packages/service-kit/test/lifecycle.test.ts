import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { Lifecycle } from "../src/lifecycle.js";
import { createLogger } from "../src/log.js";

function capturedLog() {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { log: createLogger("metering", "info", "m-1", sink), lines };
}

describe("a service's stop", () => {
  it("runs the hooks last registered first, once however often it is asked", async () => {
    const { log } = capturedLog();
    const ran: string[] = [];
    const lifecycle = new Lifecycle(log);
    lifecycle.onStop("bus", () => void ran.push("bus"));
    lifecycle.onStop("database", async () => {
      await new Promise((r) => setTimeout(r, 5));
      ran.push("database");
    });
    lifecycle.onStop("http", () => {
      ran.push("http");
      throw new Error("already closed");
    });
    await Promise.all([lifecycle.stop(), lifecycle.stop()]);
    expect(ran).toEqual(["http", "database", "bus"]);
  });

  it("gives up on a hook that never ends after the grace period, names it, and leaves the caller's process running", async () => {
    const { log, lines } = capturedLog();
    const lifecycle = new Lifecycle(log, 200);
    const ran: string[] = [];
    lifecycle.onStop("bus", () => void ran.push("bus"));
    // A pool ending over a connection the database no longer answers: never settles.
    lifecycle.onStop("database", () => new Promise<void>(() => undefined));
    const exit = process.exit;
    let exited: unknown = null;
    process.exit = ((code?: number) => {
      exited = code ?? 0;
    }) as typeof process.exit;
    try {
      const started = Date.now();
      await lifecycle.stop();
      const took = Date.now() - started;
      expect(took).toBeGreaterThanOrEqual(190);
      expect(took).toBeLessThan(5_000);
    } finally {
      process.exit = exit;
    }
    expect(exited).toBeNull();
    expect(ran).toEqual([]);
    await new Promise((r) => setImmediate(r));
    expect(lines.find((l) => l.level === 50)).toMatchObject({ hook: "database", msg: expect.stringContaining("shutdown took too long") as string });
  });
});
