import type { AddressInfo } from "node:net";
import { startRuntime, type Runtime } from "@board/service-kit";
import pkg from "../package.json" with { type: "json" };
import { CountedWallets } from "./access/counted-wallets.js";
import { RefusedCredentials } from "./access/refused-credentials.js";
import { ResolvedPrincipals } from "./access/resolved-principals.js";
import { followRevocations } from "./access/revocations.js";
import { servedReadsRecorder } from "./access/served-reads.js";
import { createServer } from "./app.js";
import { startBoardEvents } from "./events/index.js";
import type { ReadDeps } from "./reads/read.js";
import type { ServedView } from "./reads/board-view.js";
import { SharedReads } from "./http/shared-reads.js";
import { serverStopper } from "./http/stop-server.js";
import { ViewTemplates } from "./http/view-templates.js";
import { MAX_MESSAGE_BYTES, mcpEndpoint } from "./mcp/endpoint.js";
import { mcpLiveEndpoint } from "./mcp/live.js";
import { McpSessions } from "./mcp/sessions.js";
import type { GatewayEnv } from "./env.js";

export interface GatewayService {
  readonly runtime: Runtime<Record<string, never>>;
  readonly port: number;
  stop(): Promise<void>;
}

/** Wires the HTTP edge onto the bus. The gateway owns no data. */
export interface GatewayOptions {
  /** The clock identity answers by, for the principals kept a few seconds (tests run it ahead). */
  now?: () => Date;
}

export async function startGateway(env: GatewayEnv, opts: GatewayOptions = {}): Promise<GatewayService> {
  const rt = await startRuntime({ service: "gateway", version: pkg.version, description: "HTTP edge of the board", env });
  const served = servedReadsRecorder(rt.bus.nc, rt.log, rt.metrics);
  // Stops after the HTTP server (registered later, stopped first) and before the bus drains.
  rt.lifecycle.onStop("served reads", () => served.flush());
  const events = startBoardEvents({ nc: rt.bus.nc, log: rt.log, metrics: rt.metrics, env });
  const principals = new ResolvedPrincipals(opts.now);
  // A licence the operator revokes leaves this replica's kept principals at once.
  rt.lifecycle.onStop("license revocations", followRevocations(rt.bus.nc, rt.log, principals));
  const reads: ReadDeps = {
    nc: rt.bus.nc,
    timeoutMs: env.BUS_TIMEOUT_MS,
    log: rt.log,
    publicBaseUrl: new URL(env.PUBLIC_BASE_URL),
    served: served.record,
    views: new ViewTemplates(),
    principals,
    refused: new RefusedCredentials(),
    shared: new SharedReads<ServedView>(),
    countedWallets: new CountedWallets(opts.now),
  };
  const sessions = new McpSessions({
    deps: reads,
    limits: { perClient: env.MCP_MAX_SESSIONS_PER_CLIENT, total: env.MCP_MAX_SESSIONS, idleMs: env.MCP_SESSION_IDLE_SECONDS * 1000 },
    feed: events.feed,
    maxMessageBytes: MAX_MESSAGE_BYTES,
    metrics: rt.metrics,
  });
  const server = createServer({
    ...reads,
    trustProxyHops: env.TRUST_PROXY_HOPS,
    telemetry: { tracer: rt.telemetry.tracer, metrics: rt.metrics },
    events: events.streams,
    mcp: mcpEndpoint(reads, sessions),
    mcpLive: mcpLiveEndpoint(reads),
  });
  server.keepAliveTimeout = 65_000;
  const stopServer = serverStopper(server);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(env.PORT, env.HOST, () => resolve());
    });
  } catch (err) {
    await rt.stop();
    throw err;
  }
  rt.lifecycle.onStop("http", stopServer);
  // Stops first: the server's close waits for every connection, and an event stream never ends by itself.
  rt.lifecycle.onStop("event streams", () => events.stop());
  // Likewise: a session's GET stream is held open until its session ends.
  rt.lifecycle.onStop("mcp sessions", () => sessions.stop());
  await rt.serve([]);
  const port = (server.address() as AddressInfo).port;
  rt.log.info({ port }, "gateway listening");
  return { runtime: rt, port, stop: () => rt.stop() };
}
