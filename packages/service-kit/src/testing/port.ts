import net from "node:net";

/**
 * Ports handed out here lie below Linux's ephemeral range (32768-60999 by default), where the
 * kernel never places a bind to port 0: a port found free here cannot be taken, between this
 * check and the caller's own bind, by a process that asked the kernel for any port (a
 * nats-server, a chain, a health server on port 0), as happened to the launcher test's gateway.
 */
const LOW = 20_000;
const HIGH = 32_768;
const ATTEMPTS = 50;

/** Binds `port` on every interface (as the services do) and lets it go: whether it is free now. */
function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "0.0.0.0", () => server.close(() => resolve(true)));
  });
}

/** A TCP port free right now (for a server whose URL must be known before it starts), outside the range the kernel gives to port-0 binds. */
export async function freePort(): Promise<number> {
  for (let i = 0; i < ATTEMPTS; i++) {
    const port = LOW + Math.floor(Math.random() * (HIGH - LOW));
    if (await bindable(port)) return port;
  }
  throw new Error(`no free port found in ${LOW}-${HIGH - 1} after ${ATTEMPTS} tries`);
}
