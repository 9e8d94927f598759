// The ceiling's server process (bench/ceiling.ts forks it): node:http alone answering each path
// with fixed bytes, in this one process, or, asked for n > 1 workers, as a node:cluster primary
// whose n workers share one port (round-robin: the primary accepts each connection and hands it
// to a worker, which then serves it alone). Nothing else runs in these processes.
import cluster from "node:cluster";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
/** Fixed bytes to answer with, and their Content-Encoding when they are compressed. */
export interface BareBody {
  body: Buffer;
  encoding?: "gzip";
}

/** Asked of this process once it said hello: the bytes to serve, and in how many workers. */
export interface CeilingStart {
  bodies: [string, BareBody][];
  workers: number;
}

/** Its answer: the port every worker listens on, and the pids serving (the primary's first). */
export type CeilingReady = { port: number; pids: number[] } | { error: string };

/** What a cluster worker is sent, and answers. */
type WorkerStart = { bodies: [string, BareBody][] };
type WorkerReady = { port: number };

const HELLO = "hello";

/** A Buffer again (structured clone may hand a Uint8Array back). */
const asBuffer = (b: Uint8Array): Buffer => (Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength));

/** The same server as the bench's ceiling has always been: the exact bytes, Content-Type, Content-Length and Content-Encoding. */
function serve(entries: [string, BareBody][]): Promise<number> {
  const bodies = new Map(entries.map(([path, b]) => [path, { body: asBuffer(b.body), encoding: b.encoding }]));
  const server: Server = createServer((req, res) => {
    const found = bodies.get(req.url ?? "");
    if (!found) {
      res.writeHead(404).end();
      return;
    }
    const headers: Record<string, string | number> = { "Content-Type": "application/json; charset=utf-8", "Content-Length": found.body.length };
    if (found.encoding) headers["Content-Encoding"] = found.encoding;
    res.writeHead(200, headers);
    res.end(found.body);
  });
  server.keepAliveTimeout = 60_000;
  return new Promise<number>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port));
  });
}

/** Answers the first message after saying hello (a message sent before a listener exists is lost). */
function onStart<T>(handle: (msg: T) => Promise<unknown>): void {
  process.once("message", (msg: T) => {
    handle(msg).then(
      (reply) => process.send?.(reply),
      (err: unknown) => process.send?.({ error: err instanceof Error ? err.message : String(err) }),
    );
  });
  process.send?.(HELLO);
}

/** Forks n workers; each listens on port 0, which the cluster's primary makes one shared port. */
async function primary(start: CeilingStart): Promise<CeilingReady> {
  cluster.setupPrimary({ serialization: "advanced" });
  process.once("SIGTERM", () => {
    const workers = Object.values(cluster.workers ?? {});
    let left = workers.length;
    if (!left) process.exit(0);
    for (const w of workers) {
      w?.once("exit", () => --left || process.exit(0));
      w?.process.kill("SIGTERM");
    }
  });
  const ports = await Promise.all(
    Array.from({ length: start.workers }, () => {
      const worker = cluster.fork();
      return new Promise<number>((resolve, reject) => {
        worker.once("exit", (code, signal) => reject(new Error(`a ceiling worker exited (${signal ?? code}) before it listened`)));
        worker.on("message", (msg: typeof HELLO | WorkerReady | { error: string }) => {
          if (msg === HELLO) worker.send({ bodies: start.bodies } satisfies WorkerStart);
          else if ("error" in msg) reject(new Error(msg.error));
          else resolve(msg.port);
        });
      });
    }),
  );
  const port = ports[0]!;
  if (ports.some((p) => p !== port)) throw new Error(`the cluster's workers listen on different ports: ${ports.join(", ")}`);
  return { port, pids: [process.pid, ...Object.values(cluster.workers ?? {}).map((w) => w!.process.pid!)] };
}

// Gone with whoever started it.
process.on("disconnect", () => process.exit(0));
if (cluster.isPrimary) {
  onStart<CeilingStart>(async (start) => (start.workers > 1 ? primary(start) : { port: await serve(start.bodies), pids: [process.pid] }));
} else {
  onStart<WorkerStart>(async (start) => ({ port: await serve(start.bodies) }) satisfies WorkerReady);
}
