import { randomBytes } from "node:crypto";
import { BURST_MEMBERS_SUBJECT, BurstMember, meteringBurstTake } from "@board/proto";
import { Counter, Gauge, request, type Logger, type Metrics, type NatsConnection } from "@board/service-kit";
import type { BurstOwners } from "./owners.js";
import type { SendTakes, SharedBurst } from "./shared-burst.js";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A member id for this run of a replica: its instance name (readable in logs) and a random part (a restart is a new member). */
export function burstMemberId(instance: string): string {
  return `${instance.replace(/[^\w-]/g, "_").slice(0, 50)}-${randomBytes(4).toString("hex")}`;
}

/** Takes go to their owner's own endpoint, through the shared request path (validated, traced, timed). */
export function sendTakesOverBus(nc: NatsConnection, timeoutMs: number): SendTakes {
  const endpoints = new Map<string, ReturnType<typeof meteringBurstTake>>();
  return async (owner, takes) => {
    let ep = endpoints.get(owner);
    if (!ep) {
      // Members come and go with restarts: keep the cache to the few seen lately.
      if (endpoints.size >= 64) endpoints.clear();
      endpoints.set(owner, (ep = meteringBurstTake(owner)));
    }
    return (await request(nc, ep, { takes }, { timeoutMs })).results;
  };
}

export interface BurstMembershipOptions {
  nc: NatsConnection;
  owners: BurstOwners;
  log: Logger;
  heartbeatMs: number;
  /** Monotonic milliseconds. */
  monotonic: () => number;
}

export interface BurstMembership {
  /** Starts owning buckets: tells the others, then heartbeats. Call once this replica's take endpoint is served. */
  announce(): void;
  /** Stops owning buckets: tells the others at once and stops listening. */
  leave(): Promise<void>;
}

/**
 * Learns the metering members before this replica serves: listens to their announcements,
 * asks them to announce themselves (`joining`) and gives them a moment to answer, so the
 * first checks this replica routes already go to the right owners.
 */
export async function joinBurstMembers(opts: BurstMembershipOptions): Promise<BurstMembership> {
  const { nc, owners, log } = opts;
  const self = owners.self;
  const message = (state: BurstMember["state"]) => encoder.encode(JSON.stringify({ id: self, state } satisfies BurstMember));
  const up = message("up");
  let announced = false;
  let heartbeat: NodeJS.Timeout | null = null;
  const publish = (data: Uint8Array) => {
    try {
      nc.publish(BURST_MEMBERS_SUBJECT, data);
    } catch (err) {
      // Closed or draining: the others find out by our silence.
      log.debug({ err }, "burst membership not announced");
    }
  };

  const sub = nc.subscribe(BURST_MEMBERS_SUBJECT, {
    callback: (err, msg) => {
      if (err) return;
      let raw: unknown;
      try {
        raw = JSON.parse(decoder.decode(msg.data));
      } catch {
        raw = undefined;
      }
      const parsed = BurstMember.safeParse(raw);
      if (!parsed.success || parsed.data.id === self) return;
      const { id, state } = parsed.data;
      if (state === "down") {
        if (owners.left(id)) log.info({ member: id, members: owners.members.length }, "burst member left");
      } else if (state === "up") {
        if (owners.heard(id, opts.monotonic())) {
          log.info({ member: id, members: owners.members.length }, "burst member joined");
          // A member new to us may not know us either (it just started, or came back from a partition).
          if (announced) publish(up);
        }
      } else if (announced) {
        publish(up);
      }
    },
  });

  publish(message("joining"));
  await nc.flush();
  // The members answer at once; a local round trip is well under this.
  await new Promise((r) => setTimeout(r, Math.min(250, opts.heartbeatMs)));

  return {
    announce() {
      if (announced) return;
      announced = true;
      publish(up);
      heartbeat = setInterval(() => {
        publish(up);
        for (const id of owners.expire(opts.monotonic())) log.warn({ member: id, members: owners.members.length }, "burst member went silent; its buckets move to the others");
      }, opts.heartbeatMs);
      heartbeat.unref();
    },
    async leave() {
      if (heartbeat) clearInterval(heartbeat);
      if (!sub.isClosed()) sub.unsubscribe();
      if (!announced) return;
      announced = false;
      publish(message("down"));
      await nc.flush().catch(() => undefined);
    },
  };
}

/** The burst path of each take, the batching of forwarded ones, and the members this replica sees, on /metrics. */
export function registerBurstMetrics(registry: Metrics["registry"], burst: SharedBurst, owners: BurstOwners): void {
  new Counter({
    name: "metering_burst_takes_total",
    help: "Burst checks by how they were answered: local (this replica owns the bucket), forwarded (its owner answered), fallback (no owner answered: this replica's own bucket)",
    labelNames: ["path"],
    registers: [registry],
    collect() {
      this.reset();
      this.inc({ path: "local" }, burst.counts.local);
      this.inc({ path: "forwarded" }, burst.counts.forwarded);
      this.inc({ path: "fallback" }, burst.counts.fallback);
    },
  });
  new Counter({
    name: "metering_burst_batches_total",
    help: "Messages of burst checks sent on to their owners (forwarded takes per message is the batching)",
    registers: [registry],
    collect() {
      this.reset();
      this.inc(burst.counts.batches);
    },
  });
  new Gauge({
    name: "metering_burst_members",
    help: "Metering replicas owning burst buckets, as this replica sees them (itself included)",
    registers: [registry],
    collect() {
      this.set(owners.members.length);
    },
  });
}
