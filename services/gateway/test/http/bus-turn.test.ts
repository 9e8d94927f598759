import { describe, expect, it } from "vitest";
import { busTurn } from "../../src/http/bus-turn.js";

describe("busTurn", () => {
  it("gives every caller of one turn the same wait, resolved after the turn's microtasks and I/O callbacks", async () => {
    const order: string[] = [];
    const a = busTurn();
    const b = busTurn();
    expect(a).toBe(b);
    void a.then(() => order.push("turn"));
    queueMicrotask(() => order.push("microtask"));
    setImmediate(() => order.push("immediate queued later"));
    await a;
    expect(order).toEqual(["microtask", "turn"]);
    await new Promise((r) => setImmediate(r));
    expect(order).toEqual(["microtask", "turn", "immediate queued later"]);
  });

  it("starts a new turn once one has resolved", async () => {
    const first = busTurn();
    await first;
    const second = busTurn();
    expect(second).not.toBe(first);
    await second;
  });
});
