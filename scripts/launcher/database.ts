// One embedded Postgres for the whole stack when no DATABASE_URL is given: a single PGlite
// (WASM Postgres, data under DATA_DIR/pglite) served on a loopback socket, so every service
// connects with its ordinary pg pool and keeps its own schema, as with a real server. One
// instance instead of one per service: a quarter of the memory and one start instead of four.
// PGlite runs one query at a time; the socket server queues connections' queries and keeps a
// transaction's statements together.

import { mkdirSync } from "node:fs";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";

/** Enough for every service's pool (pg's default of 10 each) and the launcher's own checks. */
const MAX_CONNECTIONS = 64;
/** A development database holds a few megabytes: Postgres's default 128 MB of buffers would be most of the stack's memory. */
const POSTGRESQL_CONF = ["shared_buffers=16MB"];

export type EmbeddedDatabase = { url: string; dir: string; stop(): Promise<void> };

export async function startEmbeddedDatabase(dataDir: string): Promise<EmbeddedDatabase> {
  const dir = path.join(dataDir, "pglite");
  mkdirSync(dir, { recursive: true });
  const db = await PGlite.create(dir, { postgresqlconf: POSTGRESQL_CONF });
  const server = new PGLiteSocketServer({ db, host: "127.0.0.1", port: 0, maxConnections: MAX_CONNECTIONS });
  await server.start();
  const port = portOf(server);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    dir,
    async stop() {
      await server.stop();
      await db.close();
    },
  };
}

/** The port the server was given (port 0 asks the system for a free one). */
function portOf(server: PGLiteSocketServer): number {
  const conn = server.getServerConn();
  const port = Number(conn.split(":").pop());
  if (!Number.isInteger(port) || port <= 0) throw new Error(`embedded database: no port in "${conn}"`);
  return port;
}
