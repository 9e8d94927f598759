import { fileURLToPath } from "node:url";
import { createLogger, openDatabase, type OpenDatabase } from "@board/service-kit";
import { freshDatabase, testInfra, type TestDatabase } from "@board/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as schema from "../../src/db/schema.js";
import { NewCredentials } from "../../src/new-credentials/new-credentials.js";

/**
 * The per-address limits on new free keys and wallet sign-ins, on the real Postgres, as two
 * metering replicas see them (two pools): the count is one decision per address however many
 * replicas admit at once.
 */
const infra = testInfra();
const LIMITS = { free_key: 5, wallet: 3 };
const WINDOW = 3600;
let db: TestDatabase;
const opened: OpenDatabase<typeof schema>[] = [];
let replicas: NewCredentials[] = [];

beforeAll(async () => {
  db = await freshDatabase(infra.databaseUrl);
  const log = createLogger("metering", "warn", "test");
  const migrationsFolder = fileURLToPath(new URL("../../drizzle", import.meta.url));
  for (let i = 0; i < 2; i++) opened.push(await openDatabase({ service: "metering", url: db.url, dataDir: "", migrationsFolder, schema, log }));
  replicas = opened.map((o) => new NewCredentials(o.db, LIMITS, WINDOW));
});
afterAll(async () => {
  for (const o of opened) await o.close();
  await db?.drop();
});

const at = (seconds: number) => new Date(Date.UTC(2026, 10, 27, 12, 0, seconds));

describe("new credentials per client address", () => {
  it("40 keys asked at once through two replicas: exactly the limit is granted, the rest told when room comes back", async () => {
    const replies = await Promise.all(Array.from({ length: 40 }, (_, i) => replicas[i % 2]!.admit({ kind: "free_key", client: "198.51.100.1" }, at(0))));
    expect(replies.filter((r) => r.granted)).toHaveLength(LIMITS.free_key);
    for (const r of replies) if (!r.granted) expect(r).toEqual({ granted: false, reason: "key_issue_limit", limit: LIMITS.free_key, window_seconds: WINDOW, retry_after_seconds: WINDOW });
    // Another address, and the other kind, have their own room.
    expect((await replicas[0]!.admit({ kind: "free_key", client: "198.51.100.2" }, at(0))).granted).toBe(true);
    expect((await replicas[0]!.admit({ kind: "wallet", client: "198.51.100.1", wallet: "wallet:eip155:8453:0x01" }, at(0))).granted).toBe(true);
  });

  it("a wallet counts once per window, whichever replica sees it again; a new one past the limit waits for the oldest to leave the window", async () => {
    const client = "2001:db8:7:1::/64";
    const admit = (wallet: string, s: number, replica = 0) => replicas[replica]!.admit({ kind: "wallet", client, wallet }, at(s));
    for (const [i, w] of ["w1", "w2", "w3"].entries()) expect(await admit(w, i * 10)).toEqual({ granted: true, counted_until: at(WINDOW + i * 10).toISOString() });
    // 12 wallets' sessions re-signed on both replicas: no new count, each told when its count ends (counted at i * 10 s).
    for (let i = 0; i < 12; i++) {
      expect(await admit(`w${(i % 3) + 1}`, 100 + i, i % 2)).toEqual({ granted: true, counted_until: at(WINDOW + (i % 3) * 10).toISOString() });
    }
    expect(await admit("w4", 200, 1)).toMatchObject({ granted: false, reason: "sign_in_limit", retry_after_seconds: WINDOW - 200 });
    // w1 (counted at 0 s) leaves the window at 3600 s: w4 fits, w5 does not until w2 leaves (3610 s).
    expect((await admit("w4", WINDOW)).granted).toBe(true);
    expect(await admit("w5", WINDOW + 1)).toMatchObject({ granted: false, retry_after_seconds: 9 });
    expect((await admit("w5", WINDOW + 10, 1)).granted).toBe(true);
  });

  it("prune forgets what no longer counts", async () => {
    await replicas[0]!.prune(at(3 * WINDOW));
    const replies = await Promise.all(Array.from({ length: LIMITS.free_key }, () => replicas[1]!.admit({ kind: "free_key", client: "198.51.100.1" }, at(3 * WINDOW))));
    expect(replies.every((r) => r.granted)).toBe(true);
  });
});
