import { randomBytes } from "node:crypto";
import pg from "pg";

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

/** A new, empty database on the test Postgres, so a test file starts from nothing and leaves nothing. */
export async function freshDatabase(baseUrl: string): Promise<TestDatabase> {
  const name = `t_${Date.now().toString(36)}_${randomBytes(3).toString("hex")}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: baseUrl });
      await c.connect();
      try {
        await c.query(`drop database if exists ${name} with (force)`);
      } finally {
        await c.end();
      }
    },
  };
}
