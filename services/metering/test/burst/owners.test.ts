import { describe, expect, it } from "vitest";
import { BurstOwners, hashString } from "../../src/burst/owners.js";

const keys = Array.from({ length: 3000 }, (_, i) => `license:k${i}`);
const EXPIRY = 3000;

/** A replica's view with these peers heard at time 0. */
function view(self: string, peers: string[]): BurstOwners {
  const o = new BurstOwners(self, EXPIRY);
  for (const p of peers) o.heard(p, 0);
  return o;
}

describe("burst owners (rendezvous hashing over live members)", () => {
  it("alone, a replica owns every key", () => {
    const o = new BurstOwners("a", EXPIRY);
    expect(keys.every((k) => o.ownerOf(k) === "a")).toBe(true);
    expect(o.members).toEqual(["a"]);
  });

  it("replicas that see the same members agree on every owner, and share the keys about evenly", () => {
    const a = view("a", ["b", "c"]);
    const b = view("b", ["c", "a"]);
    const c = view("c", ["a", "b"]);
    const share = new Map<string, number>();
    for (const k of keys) {
      const owner = a.ownerOf(k);
      expect(b.ownerOf(k)).toBe(owner);
      expect(c.ownerOf(k)).toBe(owner);
      share.set(owner, (share.get(owner) ?? 0) + 1);
    }
    for (const id of ["a", "b", "c"]) expect(share.get(id)).toBeGreaterThan(keys.length / 3 - 200);
  });

  it("a member leaving moves only its own keys; one joining takes keys only for itself", () => {
    const three = view("a", ["b", "c"]);
    const before = new Map(keys.map((k) => [k, three.ownerOf(k)]));
    three.left("c");
    for (const k of keys) if (before.get(k) !== "c") expect(three.ownerOf(k)).toBe(before.get(k));
    expect(keys.some((k) => before.get(k) === "c")).toBe(true);
    expect(keys.every((k) => three.ownerOf(k) !== "c")).toBe(true);

    three.heard("c", 10);
    three.heard("d", 10);
    for (const k of keys) {
      const now = three.ownerOf(k);
      if (now !== "d") expect(now).toBe(before.get(k));
    }
    const moved = keys.filter((k) => three.ownerOf(k) === "d").length;
    expect(moved).toBeGreaterThan(keys.length / 4 - 200);
    expect(moved).toBeLessThan(keys.length / 4 + 200);
  });

  it("a peer silent past the expiry owns nothing; hearing it again brings it back", () => {
    const o = view("a", ["b"]);
    expect(o.heard("b", 2000)).toBe(false);
    expect(o.expire(EXPIRY + 1999)).toEqual([]);
    expect(o.expire(EXPIRY + 2001)).toEqual(["b"]);
    expect(o.members).toEqual(["a"]);
    expect(o.heard("b", 6000)).toBe(true);
    expect(o.members).toEqual(["a", "b"]);
  });

  it("a suspected peer owns nothing until heard again after its suspicion runs out", () => {
    const o = view("a", ["b"]);
    expect(o.suspect("b", 100)).toBe(true);
    expect(o.suspect("b", 200)).toBe(false); // already suspected
    expect(o.members).toEqual(["a"]);
    o.heard("b", 1000); // heartbeats while suspected do not bring it back early
    expect(o.members).toEqual(["a"]);
    o.heard("b", 100 + EXPIRY);
    expect(o.members).toEqual(["a", "b"]);
    expect(o.suspect("unknown", 0)).toBe(false);
  });

  it("never counts itself as a peer", () => {
    const o = new BurstOwners("a", EXPIRY);
    expect(o.heard("a", 0)).toBe(false);
    expect(o.left("a")).toBe(false);
    expect(o.members).toEqual(["a"]);
  });

  it("hashes strings to the same unsigned 32-bit number everywhere (FNV-1a)", () => {
    expect(hashString("")).toBe(0x811c9dc5);
    expect(hashString("a")).toBe(0xe40c292c);
    expect(hashString("license:k1")).toBe(hashString("license:k1"));
  });
});
