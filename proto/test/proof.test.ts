import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { boardContentHash, chainCommitment, checkBoardAgainstProof, GENESIS_COMMITMENT, type ChainLink } from "../src/proof.js";

const sha = (s: string) => createHash("sha256").update(s).digest("hex");

function chain(boards: Record<string, unknown>[]): ChainLink[] {
  let previous = GENESIS_COMMITMENT;
  const links = boards.map((b, i) => {
    const content_hash = boardContentHash(b);
    const link = { seq: i + 1, content_hash, previous, commitment: chainCommitment(previous, content_hash) };
    previous = link.commitment;
    return link;
  });
  return links.reverse(); // newest first, as /api/board/proof lists them
}

describe("proof chain", () => {
  it("hashes RFC 8785 canonical JSON: key order and the freshness block do not matter", () => {
    const a = { b: 1, a: [1.5, "x", { d: null, c: true }] };
    expect(boardContentHash(a)).toBe(sha('{"a":[1.5,"x",{"c":true,"d":null}],"b":1}'));
    expect(boardContentHash({ a: a.a, b: 1, freshness: { data_age_seconds: 9 } })).toBe(boardContentHash(a));
    expect(boardContentHash({ ...a, b: 2 })).not.toBe(boardContentHash(a));
    // RFC 8785 number form: 1e21 and 0.000001 as ECMAScript prints them
    expect(boardContentHash({ n: 1e21, m: 0.000001 })).toBe(sha('{"m":0.000001,"n":1e+21}'));
  });

  it("verifies a committed board and every link to the head", () => {
    const boards = [{ day: 1 }, { day: 2 }, { day: 3 }];
    const links = chain(boards);
    expect(checkBoardAgainstProof({ day: 2, freshness: {} }, links)).toMatchObject({ ok: true, seq: 2, linksChecked: 2 });
  });

  it("refuses a tampered board, a forged commitment and a broken link", () => {
    const links = chain([{ day: 1 }, { day: 2 }, { day: 3 }]);
    expect(checkBoardAgainstProof({ day: 4 }, links)).toMatchObject({ ok: false, reason: "not_committed" });
    const forged = links.map((l) => (l.seq === 3 ? { ...l, commitment: "f".repeat(64) } : l));
    expect(checkBoardAgainstProof({ day: 2 }, forged)).toMatchObject({ ok: false, reason: "bad_commitment", seq: 3 });
    const rewired = links.map((l) => (l.seq === 3 ? { ...l, previous: "e".repeat(64), commitment: chainCommitment("e".repeat(64), l.content_hash) } : l));
    expect(checkBoardAgainstProof({ day: 2 }, rewired)).toMatchObject({ ok: false, reason: "broken_link", seq: 3 });
  });
});
