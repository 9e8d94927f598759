import { createInbox, type Msg, type MsgHdrs, type NatsConnection } from "nats";
import { BusError } from "./errors.js";

interface Pending {
  resolve: (msg: Msg) => void;
  reject: (err: BusError) => void;
  timer: NodeJS.Timeout;
  subject: string;
}

/**
 * Request/reply over one wildcard inbox subscription per connection. nats.js's own request()
 * does the same, but builds a NatsError on every successful reply (to reject a promise that is
 * already settled) and, with async traces, two more: about a tenth of the gateway's CPU per
 * read, measured. Here nothing is allocated but the reply's timer, and the outcomes are bus
 * errors directly: no responders (the server's 503 status) 503, no reply in time 504.
 */
export class ReplyMux {
  private readonly prefix: string;
  private readonly pending = new Map<string, Pending>();
  private next = 0;

  constructor(private readonly nc: NatsConnection) {
    // The connection's own inbox prefix: with bus permissions it is the only inbox it may read.
    this.prefix = `${createInbox((nc as { options?: { inboxPrefix?: string } }).options?.inboxPrefix)}.`;
    nc.subscribe(`${this.prefix}*`, { callback: (err, msg) => (err ? undefined : this.deliver(msg)) });
  }

  request(subject: string, data: Uint8Array, timeoutMs: number, headers?: MsgHdrs): Promise<Msg> {
    const token = (this.next++).toString(36);
    return new Promise<Msg>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(token);
        reject(new BusError("upstream_timeout", 504, `${subject}: timed out`));
      }, timeoutMs);
      this.pending.set(token, { resolve, reject, timer, subject });
      try {
        this.nc.publish(subject, data, { reply: this.prefix + token, ...(headers ? { headers } : {}) });
      } catch {
        // A closed or draining connection refuses the publish at once.
        clearTimeout(timer);
        this.pending.delete(token);
        reject(new BusError("service_unavailable", 503, `${subject}: bus unavailable`));
      }
    });
  }

  private deliver(msg: Msg): void {
    const token = msg.subject.slice(this.prefix.length);
    const p = this.pending.get(token);
    if (!p) return; // late: its request already timed out
    this.pending.delete(token);
    clearTimeout(p.timer);
    // The server answers a request nobody subscribes to with an empty 503 status message.
    if (msg.data.length === 0 && msg.headers?.code === 503) p.reject(new BusError("service_unavailable", 503, `${p.subject}: no responders`));
    else p.resolve(msg);
  }
}

const muxes = new WeakMap<NatsConnection, ReplyMux>();

/** The connection's reply mux, made on its first request. */
export function replyMuxOf(nc: NatsConnection): ReplyMux {
  let mux = muxes.get(nc);
  if (!mux) muxes.set(nc, (mux = new ReplyMux(nc)));
  return mux;
}
