import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface BareServer {
  base: string;
  stop(): Promise<void>;
}

/** node:http alone, answering each path with fixed bytes: the most this machine serves those bytes at. */
export async function startBareServer(bodies: ReadonlyMap<string, Buffer>): Promise<BareServer> {
  const server: Server = createServer((req, res) => {
    const body = bodies.get(req.url ?? "");
    if (!body) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "Content-Type": "application/json; charset=utf-8", "Content-Length": body.length });
    res.end(body);
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
