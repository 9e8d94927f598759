import { inboxPrefixOf, type ServiceName } from "@board/proto";
import type { Service } from "nats";
import { instrumentBus } from "./bus-instruments.js";
import { registerBusMetrics } from "./bus-metrics.js";
import { connectBus, type Bus } from "./bus.js";
import { openDatabase, type OpenDatabase } from "./db.js";
import { databaseTimeouts, databaseUrl, type BaseEnv } from "./env.js";
import { startHealthServer, type HealthServer, type ReadinessCheck } from "./health.js";
import { Lifecycle } from "./lifecycle.js";
import { createLogger, logFormatOf, type Logger } from "./log.js";
import { createMetrics, type Metrics } from "./metrics.js";
import { addBusService, defaultInstanceId, type Binding } from "./service.js";
import { startTelemetry, type Telemetry } from "./telemetry.js";
import { collectWhenIdle } from "./idle-collector.js";

export interface RuntimeOptions<S extends Record<string, unknown>> {
  service: ServiceName;
  version: string;
  description: string;
  env: BaseEnv;
  /** The service's database: its migrations folder and drizzle schema. Omit for a service that owns no data. */
  database?: { migrationsFolder?: string; schema?: S };
  /** Further readiness checks beyond the bus and the database. */
  checks?: Record<string, ReadinessCheck>;
  /** More of the service's state for the /readyz body, asked per request (it does not decide readiness). */
  describeReadiness?: () => Record<string, unknown>;
}

export interface Runtime<S extends Record<string, unknown>> {
  readonly service: ServiceName;
  readonly instance: string;
  readonly log: Logger;
  readonly metrics: Metrics;
  /** This runtime's tracer provider: its spans carry this service's name, whatever else runs in the process. */
  readonly telemetry: Telemetry;
  readonly bus: Bus;
  readonly database: OpenDatabase<S> | null;
  readonly health: HealthServer;
  readonly lifecycle: Lifecycle;
  /** Registers the service and its endpoints on the bus; call once the service can answer. */
  serve(bindings: Binding[]): Promise<Service>;
  stop(): Promise<void>;
}

/** The plumbing every service starts with, in order: log, metrics, tracing, bus, database, health port. */
export async function startRuntime<S extends Record<string, unknown> = Record<string, never>>(
  opts: RuntimeOptions<S>,
): Promise<Runtime<S>> {
  // A configuration error is thrown before anything starts.
  const dbUrl = databaseUrl(opts.env, opts.service);
  const instance = opts.env.INSTANCE_ID ?? defaultInstanceId();
  const log = createLogger(opts.service, opts.env.LOG_LEVEL, instance, undefined, logFormatOf(opts.env.LOG_FORMAT));
  const metrics = createMetrics(opts.service);
  const lifecycle = new Lifecycle(log);
  const telemetry = startTelemetry({ service: opts.service, version: opts.version, instance, env: opts.env, log });
  // Stopped last: spans of the shutdown itself are still sent.
  lifecycle.onStop("telemetry", () => telemetry.shutdown());
  // Query spans only when spans are exported: otherwise the pool is left as it is.
  const queryTracing = telemetry.mode === "export" ? { tracer: telemetry.tracer } : {};
  try {
    const bus = await connectBus(opts.env.NATS_URL, `${opts.service}:${instance}`, log, {
      asyncTraces: opts.env.NATS_ASYNC_TRACES,
      seed: opts.env.NATS_NKEY_SEED,
      inboxPrefix: inboxPrefixOf(opts.service),
      tlsCaFile: opts.env.NATS_TLS_CA_FILE,
    });
    instrumentBus(bus.nc, { tracer: telemetry.tracer, metrics, connected: bus.connected });
    registerBusMetrics(metrics, bus);
    lifecycle.onStop("bus", async () => {
      if (!bus.nc.isClosed()) await bus.nc.drain();
    });
    const database = opts.database
      ? await openDatabase<S>({
          service: opts.service,
          url: dbUrl,
          dataDir: opts.env.DATA_DIR,
          timeouts: databaseTimeouts(opts.env, opts.service),
          log,
          metrics,
          ...queryTracing,
          ...(opts.database.migrationsFolder ? { migrationsFolder: opts.database.migrationsFolder } : {}),
          ...(opts.database.schema ? { schema: opts.database.schema } : {}),
        })
      : null;
    if (database) lifecycle.onStop("database", () => database.close());
    const checks: Record<string, ReadinessCheck> = {
      nats: () => {
        if (!bus.connected()) throw new Error("bus down");
      },
      ...(database ? { database: () => database.ping() } : {}),
      ...opts.checks,
    };
    const health = await startHealthServer({ port: opts.env.HEALTH_PORT, checks, describe: opts.describeReadiness, registry: metrics.registry, log });
    lifecycle.onStop("health", () => health.close());
    const stopCollecting = collectWhenIdle();
    lifecycle.onStop("idle collector", stopCollecting);
    return {
      service: opts.service,
      instance,
      log,
      metrics,
      telemetry,
      bus,
      database,
      health,
      lifecycle,
      serve: async (bindings) => {
        const srv = await addBusService({
          nc: bus.nc,
          name: opts.service,
          version: opts.version,
          description: opts.description,
          instance,
          log,
          metrics,
          tracer: telemetry.tracer,
          bindings,
        });
        lifecycle.onStop("service", async () => {
          if (!srv.isStopped) await srv.stop();
        });
        log.info({ endpoints: bindings.map((b) => b.ep.subject) }, "serving on the bus");
        return srv;
      },
      stop: () => lifecycle.stop(),
    };
  } catch (err) {
    await lifecycle.stop();
    throw err;
  }
}
