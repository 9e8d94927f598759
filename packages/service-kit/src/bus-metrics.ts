import { DebugEvents, Events, type NatsConnection } from "nats";
import type { Bus } from "./bus.js";
import { Counter, Gauge, type Metrics } from "./metrics.js";

/**
 * bus_connected (1 up, 0 between a disconnect and the reconnect) and bus_disconnects_total, so
 * an operator sees a replica cut from NATS, or one whose connection flaps, without its logs.
 */
export function registerBusMetrics(metrics: Metrics, bus: Bus): void {
  new Gauge({
    name: "bus_connected",
    help: "1 while this replica's NATS connection is up, 0 while it is reconnecting",
    registers: [metrics.registry],
    collect() {
      this.set(bus.connected() ? 1 : 0);
    },
  });
  const disconnects = new Counter({ name: "bus_disconnects_total", help: "Times this replica's NATS connection was lost", registers: [metrics.registry] });
  // Made now so a replica that never lost its connection says 0, not nothing.
  disconnects.inc(0);
  void countDisconnects(bus.nc, () => disconnects.inc());
}

async function countDisconnects(nc: NatsConnection, inc: () => void): Promise<void> {
  let up = true;
  // Disconnect and the first Reconnecting of an outage are one loss, as bus.ts logs it.
  for await (const s of nc.status()) {
    if (s.type === Events.Disconnect || s.type === DebugEvents.Reconnecting) {
      if (up) inc();
      up = false;
    } else if (s.type === Events.Reconnect) up = true;
  }
}
