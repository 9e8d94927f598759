// The proof chain past its newest page: /api/board/proof?before=<seq> pages back through it, and
// npm run verify-proof follows the pages down to a board older than the newest 500.
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { boardContentHash, checkContentAgainstProof, PROOF_WINDOW, ProofView, type Snapshot } from "@board/proto";
import { fixtureSnapshot } from "@board/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Stack } from "./harness.js";

const ROOT = path.resolve(import.meta.dirname, "../..");
const stack = new Stack();
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "board-proof-pages-"));
/** Past one page: the oldest boards are only on the second. */
const BOARDS = PROOF_WINDOW + 20;
const boards: Snapshot[] = [];

const proof = async (query = "") => {
  const res = await fetch(`${stack.base}/api/board/proof${query}`);
  return { status: res.status, body: (await res.json()) as unknown };
};

beforeAll(async () => {
  await stack.start();
  await stack.startBoard();
  const at = Date.parse("2026-11-20T07:00:00-08:00");
  for (let i = 0; i < BOARDS; i++) {
    // Small boards a minute apart, all of one session: the chain is what is tested.
    const computedAt = new Date(at + i * 60_000).toISOString().replace(/\.000Z$/, "Z");
    boards.push(fixtureSnapshot({ asofDaily: "2026-11-20", computedAt, seed: i + 1, names: 12 }));
  }
  for (const b of boards) await stack.publish(b);
  await stack.untilServing();
  for (let i = 0; i < 600; i++) {
    const { body } = await proof();
    if ((body as { total?: number }).total === BOARDS) break;
    await new Promise((r) => setTimeout(r, 100));
  }
}, 180_000);

afterAll(async () => {
  await stack.stop();
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe("/api/board/proof?before=", () => {
  it("pages back from a seq: the commitments below it, newest first, with the chain's head and total", async () => {
    const newest = ProofView.parse((await proof()).body);
    expect(newest.total).toBe(BOARDS);
    expect(newest.entries).toHaveLength(PROOF_WINDOW);
    const oldestSeq = newest.entries.at(-1)!.seq;
    expect(oldestSeq).toBe(BOARDS - PROOF_WINDOW + 1);
    const older = ProofView.parse((await proof(`?before=${oldestSeq}`)).body);
    expect(older.entries.map((e) => e.seq)).toEqual(Array.from({ length: oldestSeq - 1 }, (_, i) => oldestSeq - 1 - i));
    expect(older.head).toEqual(newest.head);
    expect(older.total).toBe(BOARDS);
    // The two pages are one chain: the first board's content verifies through every link up to the head.
    const first = boardContentHash(boards[0]!.board as unknown as Record<string, unknown>);
    expect(checkContentAgainstProof(first, newest.entries)).toMatchObject({ ok: false, reason: "not_committed" });
    expect(checkContentAgainstProof(first, [...newest.entries, ...older.entries])).toEqual({ ok: true, seq: 1, contentHash: first, linksChecked: BOARDS });
    // A page from a seq past the head is the newest page; below the first seq, nothing.
    expect(ProofView.parse((await proof(`?before=${BOARDS + 1000}`)).body).entries).toEqual(newest.entries);
    expect(ProofView.parse((await proof("?before=1")).body).entries).toEqual([]);
  });

  it("refuses a seq that is not a whole number from 1, with the parameter named", async () => {
    for (const bad of ["0", "-3", "abc", "1.5", "99999999999"]) {
      const { status, body } = await proof(`?before=${bad}`);
      expect(status, bad).toBe(400);
      expect(body, bad).toMatchObject({ error: { code: "invalid_query" } });
      expect(JSON.stringify(body), bad).toContain("before");
    }
  });
});

describe("npm run verify-proof past the newest page", () => {
  const verify = (file: string) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
      execFile(process.execPath, ["--import", "tsx", "scripts/verify-proof.ts", file, stack.base], { cwd: ROOT, encoding: "utf8" }, (err, stdout, stderr) =>
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      ),
    );

  it("verifies the first board, 519 commitments below the head, and refuses it changed", async () => {
    const good = path.join(tmp, "first.json");
    fs.writeFileSync(good, JSON.stringify(boards[0]!.board));
    const ok = await verify(good);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain(`is commitment #1; ${BOARDS} link(s) checked up to the head`);
    const changed = path.join(tmp, "changed.json");
    fs.writeFileSync(changed, JSON.stringify({ ...boards[0]!.board, computed_at: "2026-11-20T06:59:00-08:00" }));
    const bad = await verify(changed);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain(`NOT verified: content`);
    expect(bad.stdout).toContain(`is not among the ${BOARDS} of ${BOARDS} commitments read back from the head`);
  });
});
