import { readFileSync } from "node:fs";
import { createLogger, openDatabase, schemaName, type OpenDatabase } from "@board/service-kit";
import { freshDatabase, testInfra } from "@board/service-kit/testing";
import pg from "pg";
import { describe, expect, it } from "vitest";

// Several replicas of every service with a database, started at once on an empty database
// (a rolling deploy, a scale-up, a whole cluster restarting): every process must come up and
// every migration must be applied exactly once, with nothing created beforehand.
const infra = testInfra();
const SERVICES = ["board", "identity", "metering", "payments"] as const;
const REPLICAS = 3;
const ROUNDS = 4;
const folder = (s: string) => new URL(`../../services/${s}/drizzle`, import.meta.url).pathname;
const journal = (s: string) => (JSON.parse(readFileSync(`${folder(s)}/meta/_journal.json`, "utf8")) as { entries: { tag: string }[] }).entries;

describe("migrations with several replicas starting together", () => {
  it(`${REPLICAS} replicas each of ${SERVICES.join(", ")} on an empty database: all start, each migration recorded once`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const db = await freshDatabase(infra.databaseUrl);
      const opened: OpenDatabase<Record<string, never>>[] = [];
      try {
        const starts = SERVICES.flatMap((service) =>
          Array.from({ length: REPLICAS }, (_, i) =>
            openDatabase({ service, url: db.url, dataDir: "/nonexistent", log: createLogger(service, "silent", `r${i}`), migrationsFolder: folder(service), poolSize: 2 }),
          ),
        );
        const results = await Promise.allSettled(starts);
        for (const r of results) if (r.status === "fulfilled") opened.push(r.value);
        const failures = results.flatMap((r) => (r.status === "rejected" ? [String((r.reason as Error).message)] : []));
        expect(failures, `round ${round}`).toEqual([]);
        const client = new pg.Client({ connectionString: db.url });
        await client.connect();
        try {
          for (const service of SERVICES) {
            const rows = await client.query<{ n: string }>(`select count(*)::text as n from drizzle.${schemaName(service)}_migrations`);
            expect(Number(rows.rows[0]!.n), `${service}, round ${round}`).toBe(journal(service).length);
          }
        } finally {
          await client.end();
        }
      } finally {
        await Promise.all(opened.map((o) => o.close()));
        await db.drop();
      }
    }
  }, 120_000);
});
