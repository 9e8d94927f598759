import { describe, expect, it } from "vitest";
import { pendingSuccessor, publishedAt, removableAt, rotationState, signingKeyAt, successorDue, type ScheduledKey } from "../src/key-schedule.js";

const t0 = Date.parse("2025-01-01T00:00:00Z");
const at = (s: number) => new Date(t0 + s * 1000);
/** How long a retired key stays published (identity: an access token's lifetime). */
const KEEP = 3600;
const policy = { rotateAfterSeconds: 30 * 86400, publishLeadSeconds: 900 };

/** The first key from t0, a successor created at `rotatedAt` signing `lead` later (the first retired then). */
function rotated(rotatedAt: number, lead = 900): ScheduledKey[] {
  return [
    { kid: "a", signsFrom: at(0), retiredAt: at(rotatedAt + lead) },
    { kid: "b", signsFrom: at(rotatedAt + lead), retiredAt: null },
  ];
}

describe("the signing key schedule", () => {
  it("with no key, a key is due at once", () => {
    expect(successorDue([], at(0), policy)).toBe(true);
    expect(signingKeyAt([], at(0))).toBeUndefined();
  });

  it("a lone key signs and is published; its successor is due at rotateAfter - lead", () => {
    const keys: ScheduledKey[] = [{ kid: "a", signsFrom: at(0), retiredAt: null }];
    expect(signingKeyAt(keys, at(10))?.kid).toBe("a");
    expect(publishedAt(keys, at(10), KEEP).map((k) => k.kid)).toEqual(["a"]);
    expect(successorDue(keys, at(30 * 86400 - 901), policy)).toBe(false);
    expect(successorDue(keys, at(30 * 86400 - 900), policy)).toBe(true);
  });

  it("a successor is published ahead of signing; the old key signs until then, then the new one", () => {
    const keys = rotated(1000);
    expect(pendingSuccessor(keys, at(1000))?.kid).toBe("b");
    expect(publishedAt(keys, at(1000), KEEP).map((k) => k.kid)).toEqual(["b", "a"]);
    expect(signingKeyAt(keys, at(1899))?.kid).toBe("a");
    expect(signingKeyAt(keys, at(1900))?.kid).toBe("b");
    expect(pendingSuccessor(keys, at(1900))).toBeUndefined();
    // no second successor while one waits, however old the signing key
    const due = 30 * 86400 - 900;
    expect(successorDue(rotated(due), at(due + 899), policy)).toBe(false);
  });

  it("a retired key stays published until its last token expires (retirement + 3600 s), then may be deleted", () => {
    const keys = rotated(1000);
    expect(publishedAt(keys, at(1900 + 3599), KEEP).map((k) => k.kid)).toEqual(["b", "a"]);
    expect(removableAt(keys, at(1900 + 3599), KEEP)).toEqual([]);
    expect(publishedAt(keys, at(1900 + 3600), KEEP).map((k) => k.kid)).toEqual(["b"]);
    expect(removableAt(keys, at(1900 + 3600), KEEP).map((k) => k.kid)).toEqual(["a"]);
  });

  it("the successor's own rotation is measured from when it started signing", () => {
    const keys = rotated(1000);
    expect(successorDue(keys, at(1900 + 30 * 86400 - 901), policy)).toBe(false);
    expect(successorDue(keys, at(1900 + 30 * 86400 - 900), policy)).toBe(true);
  });

  it("a replica whose clock is behind the first key's start still has a key to sign with", () => {
    const keys: ScheduledKey[] = [{ kid: "a", signsFrom: at(5), retiredAt: null }];
    expect(signingKeyAt(keys, at(0))?.kid).toBe("a");
  });
});

describe("the rotation state, for monitoring", () => {
  it("says none without a key", () => {
    expect(rotationState([], at(0), policy)).toBeNull();
  });

  it("a lone key: due to be succeeded after its active life, its successor published the lead before", () => {
    const keys: ScheduledKey[] = [{ kid: "a", signsFrom: at(0), retiredAt: null }];
    expect(rotationState(keys, at(10), policy)).toEqual({
      signingSince: at(0),
      rotationDueAt: at(30 * 86400),
      successorDueAt: at(30 * 86400 - 900),
      successorPublished: false,
    });
  });

  it("a successor waiting is said; once it signs, the schedule starts from it", () => {
    const keys = rotated(1000);
    expect(rotationState(keys, at(1000), policy)?.successorPublished).toBe(true);
    expect(rotationState(keys, at(1900), policy)).toMatchObject({ signingSince: at(1900), rotationDueAt: at(1900 + 30 * 86400), successorPublished: false });
  });
});
