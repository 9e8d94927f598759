import type { Server } from "node:http";
import type { Socket } from "node:net";

/**
 * How the HTTP server stops: no new connections; keep-alive connections between requests
 * closed now and busy ones once their answer is sent (node does both); and connections that
 * never sent a byte (a client's or a proxy's pre-connect, an HTTP client's spare connection),
 * which node's closeIdleConnections leaves open until its headers timeout, a minute, closed
 * too. Made before the server listens: it holds each open connection.
 */
export function serverStopper(server: Server): () => Promise<void> {
  const open = new Set<Socket>();
  server.on("connection", (socket: Socket) => {
    open.add(socket);
    socket.once("close", () => open.delete(socket));
  });
  return () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
      for (const socket of open) if (socket.bytesRead === 0) socket.destroy();
    });
}
