import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface BareServer {
  base: string;
  stop(): Promise<void>;
}

/** Fixed bytes to answer with, and their Content-Encoding when they are compressed. */
export interface BareBody {
  body: Buffer;
  encoding?: "gzip";
}

/** node:http alone, answering each path with fixed bytes: the most this machine serves those bytes at. */
export async function startBareServer(bodies: ReadonlyMap<string, BareBody>): Promise<BareServer> {
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
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}
