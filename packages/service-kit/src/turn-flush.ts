import type { NatsConnection } from "nats";

/** The parts of nats.js's protocol handler (NatsConnectionImpl.protocol, 2.29) that writing to the socket goes through. */
interface Protocol {
  outbound: { length(): number; size(): number; fill(data: Uint8Array, ...more: Uint8Array[]): void };
  pendingLimit: number;
  flushPending(): void;
  sendCommand(cmd: string | Uint8Array, ...payloads: Uint8Array[]): void;
}

/**
 * nats.js writes what was published to the socket at the end of the microtask queue: a
 * service answering and asking in many continuations of one event-loop turn makes one socket
 * write each (on loopback a write is a syscall that runs the whole TCP path: the largest
 * single item of the gateway's busy time on paid reads, about a sixth). Here the first
 * command of a turn schedules the write for the end of the turn (setImmediate) instead, so a
 * turn's messages leave in one write; past the client's pending limit it still writes at once.
 * Returns whether it could (false: a nats.js whose internals differ, left as it is).
 */
export function flushOncePerTurn(nc: NatsConnection): boolean {
  const protocol = (nc as unknown as { protocol?: Protocol }).protocol;
  if (!protocol || typeof protocol.sendCommand !== "function" || typeof protocol.flushPending !== "function" || !protocol.outbound) return false;
  const encoder = new TextEncoder();
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    protocol.flushPending();
  };
  protocol.sendCommand = (cmd, ...payloads) => {
    protocol.outbound.fill(typeof cmd === "string" ? encoder.encode(cmd) : cmd, ...payloads);
    if (protocol.outbound.size() >= protocol.pendingLimit) protocol.flushPending();
    else if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
  };
  return true;
}
