import { describe, expect, it } from "vitest";
import { SharedReads } from "../../src/http/shared-reads.js";

/** An ask the test answers when it likes, counting how often it was made. */
function asker() {
  let asked = 0;
  const waiting: { resolve: (v: string) => void; reject: (e: Error) => void }[] = [];
  return {
    ask: () =>
      new Promise<string>((resolve, reject) => {
        asked++;
        waiting.push({ resolve, reject });
      }),
    answer: (v: string) => waiting.shift()!.resolve(v),
    fail: (e: Error) => waiting.shift()!.reject(e),
    get asked() {
      return asked;
    },
  };
}

describe("SharedReads", () => {
  it("answers identical reads in flight with one ask, and asks again once it answered", async () => {
    const shared = new SharedReads<string>();
    const a = asker();
    const reads = Array.from({ length: 5 }, () => shared.run("free", a.ask));
    const other = shared.run("regime", a.ask);
    expect(a.asked).toBe(2);
    a.answer("free bytes");
    a.answer("regime bytes");
    expect(await Promise.all(reads)).toEqual(Array(5).fill("free bytes"));
    expect(await other).toBe("regime bytes");
    expect(shared.joined).toBe(4);
    // Nothing in flight: the next read asks the board again (never a kept answer).
    const later = shared.run("free", a.ask);
    expect(a.asked).toBe(3);
    a.answer("newer bytes");
    expect(await later).toBe("newer bytes");
  });

  it("fails every read that joined a failed ask, and the next read asks anew", async () => {
    const shared = new SharedReads<string>();
    const a = asker();
    const reads = [shared.run("free", a.ask), shared.run("free", a.ask)];
    a.fail(new Error("board timed out"));
    for (const r of await Promise.allSettled(reads)) expect(r).toMatchObject({ status: "rejected", reason: { message: "board timed out" } });
    const again = shared.run("free", a.ask);
    expect(a.asked).toBe(2);
    a.answer("bytes");
    expect(await again).toBe("bytes");
  });
});
