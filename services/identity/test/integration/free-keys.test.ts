import { createHash } from "node:crypto";
import { FreeKeyReply, identityFreeKey, identityResolve } from "@board/proto";
import { request } from "@board/service-kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DAY, TestIdentity } from "./support.js";

const t = new TestIdentity(Date.parse("2026-03-01T12:00:00Z"));

beforeAll(() => t.start());
afterAll(() => t.stop());

const postKey = (email: string) => request(t.nc, identityFreeKey, { email });
const resolveKey = (key: string) => request(t.nc, identityResolve, { credentials: { board_key: key } });

describe("free keys (identity.v1.free_key)", () => {
  it("issues a key shown once with the tier's terms", async () => {
    const reply = FreeKeyReply.parse(await postKey("first@example.com"));
    expect(reply.key).toMatch(/^bfk_[A-Za-z0-9_-]{43}$/);
    expect(reply).toMatchObject({
      tier: "free_key",
      daily_limit: 25,
      header: "X-Board-Key",
      day_boundary: "00:00 UTC",
      expires_after_idle_days: 90,
      replaced_previous: false,
      created_at: "2026-03-01T12:00:00.000Z",
    });
    expect(reply.routes).toContain("/api/board/regime");
    expect(reply.routes).toContain("/api/board/hold");
    expect(reply.routes).not.toContain("/api/board/buylist");
    expect(reply.routes).not.toContain("/api/board/free");
    expect(reply.usage).toMatch(/X-Board-Key.*25 reads a day.*00:00 UTC.*90 days/);

    const resolved = await resolveKey(reply.key);
    if (!resolved.ok) throw new Error(resolved.message);
    expect(resolved.principal).toMatchObject({ tier: "free_key", license_kind: null, expires_at: null });
    // The principal is the email's owner digest, not the key: a key issued again for the email keeps the day's count.
    expect(resolved.principal.id).toMatch(/^email:[0-9a-f]{64}$/);
    const again = await resolveKey((await postKey(" First@Example.COM")).key);
    expect(again.ok && again.principal.id).toBe(resolved.principal.id);
  });

  it("stores the email only as its HMAC and the key only as its sha256", async () => {
    const email = "Secret.Holder@Example.com";
    const { key } = await postKey(email);
    const all = await t.dump();
    expect(all).toContain("free_key"); // the dump holds the rows (an empty dump would prove nothing)
    for (const clear of [email, email.toLowerCase(), "secret.holder", key, key.slice(4)]) expect(all).not.toContain(clear);
    const rows = await t.query<{ owner: string; key_hash: string }>(
      `select owner, key_hash from identity.board_keys where key_hash = '${createHash("sha256").update(key).digest("hex")}'`,
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]?.owner).toMatch(/^[0-9a-f]{64}$/);
  });

  it("posting the same email again retires the old key (normalized: case and spaces)", async () => {
    const first = await postKey("trader@example.com");
    const second = await postKey("  Trader@EXAMPLE.com ");
    expect(second.replaced_previous).toBe(true);
    expect(second.key).not.toBe(first.key);
    const old = await resolveKey(first.key);
    expect(old).toMatchObject({ ok: false, code: "key_unknown" });
    if (!old.ok) expect(old.message).toContain("replaced by a newer key for the same email");
    expect((await resolveKey(second.key)).ok).toBe(true);
    const other = await postKey("someone-else@example.com");
    expect(other.replaced_previous).toBe(false);
    expect((await resolveKey(second.key)).ok).toBe(true);
  });

  it("concurrent posts of one email leave exactly one live key", async () => {
    for (const email of ["race@example.com", "race2@example.com"]) {
      if (email === "race2@example.com") await postKey(email); // a live key exists before the race, too
      const replies = await Promise.all(Array.from({ length: 12 }, () => postKey(email)));
      const live = await Promise.all(replies.map(async (r) => (await resolveKey(r.key)).ok));
      expect(live.filter(Boolean)).toHaveLength(1);
      const counts = await t.query<{ live: string; total: string }>(
        "select count(*) filter (where retired_at is null) as live, count(*) as total from identity.board_keys group by owner order by total desc limit 1",
      );
      expect(Number(counts[0]?.live)).toBe(1);
      expect(replies.filter((r) => !r.replaced_previous).length).toBeLessThanOrEqual(1);
    }
  });

  it("refuses keys it never issued, and a license key on the wrong header", async () => {
    expect(await resolveKey(`bfk_${"A".repeat(43)}`)).toMatchObject({ ok: false, code: "key_unknown" });
    expect(await resolveKey("not-a-key")).toMatchObject({ ok: false, code: "key_unknown" });
    const wrong = await resolveKey(`blk_${"A".repeat(43)}`);
    expect(wrong).toMatchObject({ ok: false, code: "key_unknown" });
    if (!wrong.ok) expect(wrong.message).toContain("X-License-Key");
  });
});

describe("idle expiry (90 days unused)", () => {
  it("a key unused for 89 days works; unused for more than 90 it is expired", async () => {
    const a = await postKey("idle-a@example.com");
    const b = await postKey("idle-b@example.com");
    t.advance(89 * DAY);
    expect((await resolveKey(a.key)).ok).toBe(true); // the use restarts a's idle time
    t.advance(DAY + 1);
    const expired = await resolveKey(b.key);
    expect(expired).toMatchObject({ ok: false, code: "key_expired" });
    if (!expired.ok) expect(expired.message).toContain("POST /api/key");
    expect((await resolveKey(a.key)).ok).toBe(true);
    // Posting the email again gives a working key.
    const fresh = await postKey("idle-b@example.com");
    expect(fresh.replaced_previous).toBe(true);
    expect((await resolveKey(fresh.key)).ok).toBe(true);
  });

  it("records a use at most hourly", async () => {
    const { key } = await postKey("touch@example.com");
    const hash = createHash("sha256").update(key).digest("hex");
    const lastUsed = async () => {
      const [row] = await t.query<{ ms: string | null }>(`select (extract(epoch from last_used_at) * 1000)::bigint::text as ms from identity.board_keys where key_hash = '${hash}'`);
      return row?.ms == null ? null : Number(row.ms);
    };
    await resolveKey(key);
    expect(await lastUsed()).toBeNull(); // created moments ago: nothing to write
    t.advance(2 * 3_600_000);
    await resolveKey(key);
    const first = await lastUsed();
    expect(first).toBe(t.clock.t);
    t.advance(30 * 60_000);
    await resolveKey(key);
    expect(await lastUsed()).toBe(first);
    t.advance(31 * 60_000);
    await resolveKey(key);
    expect(await lastUsed()).toBe(t.clock.t);
  });
});
