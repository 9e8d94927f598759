import { connect, Events, DebugEvents, nkeyAuthenticator, type NatsConnection } from "nats";
import type { Logger } from "./log.js";
import { flushOncePerTurn } from "./turn-flush.js";

export type { NatsConnection };

export interface Bus {
  readonly nc: NatsConnection;
  /** True while the connection is up: false between a disconnect and the reconnect. */
  connected(): boolean;
}

export interface BusCredential {
  /** The principal's nkey seed ("SU..."): it signs the server's challenge and never leaves this process. */
  seed?: string | undefined;
  /** Replies come only to this prefix, the one inbox the principal may subscribe to. */
  inboxPrefix?: string | undefined;
}

export interface BusTls {
  /**
   * A PEM file of the CA the servers' certificates must chain to. Set: TLS is required (a
   * server that does not offer it is refused) and the certificate must name the host of the
   * URL; the file is read again at each (re)connection, so a rotated CA is picked up.
   */
  tlsCaFile?: string | undefined;
}

/** Connects to NATS and keeps reconnecting for as long as the process lives. */
export async function connectBus(url: string, name: string, log: Logger, opts: { asyncTraces?: boolean } & BusCredential & BusTls = {}): Promise<Bus> {
  const nc = await connect({
    ...(opts.tlsCaFile ? { tls: { caFile: opts.tlsCaFile } } : {}),
    ...(opts.seed ? { authenticator: nkeyAuthenticator(new TextEncoder().encode(opts.seed)) } : {}),
    ...(opts.inboxPrefix ? { inboxPrefix: opts.inboxPrefix } : {}),
    // Each request would otherwise build two Errors (stack captures) it throws away on success.
    noAsyncTraces: !opts.asyncTraces,
    servers: url.split(",").map((s) => s.trim()),
    name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 250,
    reconnectJitter: 100,
    waitOnFirstConnect: true,
    timeout: 5000,
  });
  flushOncePerTurn(nc);
  let up = true;
  void (async () => {
    for await (const s of nc.status()) {
      if (s.type === Events.Disconnect || s.type === DebugEvents.Reconnecting) {
        if (up) log.warn("bus disconnected; reconnecting");
        up = false;
      } else if (s.type === Events.Reconnect) {
        up = true;
        log.info("bus reconnected");
      }
    }
  })();
  log.info({ server: nc.getServer() }, "bus connected");
  return { nc, connected: () => up && !nc.isClosed() };
}
