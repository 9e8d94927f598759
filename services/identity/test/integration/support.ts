import { randomBytes } from "node:crypto";
import { busEnv, freshDatabase, testBusOptions, testInfra, type TestDatabase } from "@board/service-kit/testing";
import { connect, type NatsConnection } from "nats";
import { sql } from "drizzle-orm";
import { IdentityEnv } from "../../src/env.js";
import { startIdentity, type IdentityService } from "../../src/start.js";

export const DAY = 86_400_000;

/** Identity on a fresh database and the test NATS, on a clock the test moves. */
export class TestIdentity {
  readonly infra = testInfra();
  readonly clock: { t: number };
  readonly secret = randomBytes(32).toString("base64url");
  db!: TestDatabase;
  identity: IdentityService | null = null;
  /** The test's own bus connection (the suite's admin: the bus lets identity itself call none of its endpoints). */
  private client: NatsConnection | null = null;

  constructor(start: number | "real" = "real") {
    this.clock = { t: start === "real" ? Date.now() : start };
  }

  readonly now = () => new Date(this.clock.t);
  advance(ms: number) {
    this.clock.t += ms;
  }

  async start(env: Record<string, string> = {}) {
    this.db = await freshDatabase(this.infra.databaseUrl);
    this.identity = await startIdentity(
      IdentityEnv.parse({ ...busEnv("identity"), DATABASE_URL: this.db.url, HEALTH_PORT: 0, LOG_LEVEL: "warn", IDENTITY_SECRET: this.secret, ...env }),
      { now: this.now },
    );
    this.client = await connect(testBusOptions());
  }

  /** A connection of the test's own: requests travel the real bus to identity's endpoints like anyone else's. */
  get nc(): NatsConnection {
    if (!this.client) throw new Error("not started");
    return this.client;
  }

  /** Reads identity's tables directly: tests check what is (and is not) stored. */
  async query<R extends Record<string, unknown>>(text: string): Promise<R[]> {
    const db = this.identity?.runtime.database?.db;
    if (!db) throw new Error("not started");
    const res = (await db.execute(sql.raw(text))) as unknown as { rows: R[] };
    return res.rows;
  }

  /** Every row of every table in the identity schema, as one text. */
  async dump(): Promise<string> {
    const tables = await this.query<{ table_name: string }>("select table_name from information_schema.tables where table_schema = 'identity'");
    const rows = await Promise.all(tables.map((t) => this.query(`select * from identity."${t.table_name}"`)));
    return JSON.stringify(rows);
  }

  async stop() {
    await this.client?.close();
    this.client = null;
    await this.identity?.stop();
    this.identity = null;
    await this.db?.drop();
  }
}
