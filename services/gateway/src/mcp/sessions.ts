import { Counter, Gauge, type Metrics } from "@board/service-kit";
import type { Request } from "express";
import { clientOf } from "../http/client-address.js";
import { StreamCaps, type CapLimits, type CapRefusal } from "../events/caps.js";
import type { BoardEventFeed } from "../events/feed.js";
import type { ReadDeps } from "../reads/read.js";
import { changedResources } from "./resource-updates.js";
import { McpSession } from "./session.js";

export interface McpSessionLimits extends CapLimits {
  /** A session with no request and no open GET stream for this long is ended. */
  idleMs: number;
}

export interface McpSessionsOptions {
  deps: ReadDeps;
  limits: McpSessionLimits;
  /** The replica's follower of the board's publications: the same one the event stream serves. */
  feed: BoardEventFeed;
  maxMessageBytes: number;
  metrics: Metrics;
}

/**
 * The MCP sessions of this gateway replica: opened by an initialize within the caps (per client
 * address, per replica), ended by DELETE, by idling, or when the replica stops. Each board the
 * feed announces becomes notifications/resources/updated to the sessions subscribed to a
 * resource it changed. A session lives in this replica's memory only; on another replica its
 * id is unknown (404), and the client initializes again, as MCP's transport specifies.
 */
export class McpSessions {
  private readonly sessions = new Map<string, McpSession>();
  private readonly caps: StreamCaps;
  private readonly refused: Counter<"reason">;
  /** Sessions given: with the refusals, the share of initializes that got one (the MCP objective). */
  private readonly opened: Counter;
  private readonly sweep: NodeJS.Timeout;
  private stopping = false;

  constructor(private readonly opts: McpSessionsOptions) {
    this.caps = new StreamCaps(opts.limits);
    let previous = opts.feed.current()?.event ?? null;
    opts.feed.onEvent(({ event }) => {
      const changed = changedResources(previous, event);
      previous = event;
      for (const session of this.sessions.values()) {
        for (const resource of changed) void session.updated(resource.uri).catch(() => undefined);
      }
    });
    // Idle sessions are looked for a few times per idle period: one ends at most a quarter late.
    this.sweep = setInterval(() => this.endIdle(), Math.max(1000, Math.min(opts.limits.idleMs / 4, 60_000)));
    this.sweep.unref();
    const sessions = this.sessions;
    new Gauge({
      name: "mcp_sessions_open",
      help: "MCP sessions open on this gateway (/mcp with Mcp-Session-Id)",
      registers: [opts.metrics.registry],
      collect() {
        this.set(sessions.size);
      },
    });
    new Gauge({
      name: "mcp_session_streams_open",
      help: "GET notification streams of MCP sessions open on this gateway",
      registers: [opts.metrics.registry],
      collect() {
        let open = 0;
        for (const session of sessions.values()) open += session.openStreams;
        this.set(open);
      },
    });
    this.refused = new Counter({
      name: "mcp_sessions_refused_total",
      help: "MCP initializes answered without a session because a cap was reached (too_many_streams: the client address's; streams_at_capacity: this replica's)",
      labelNames: ["reason"],
      registers: [opts.metrics.registry],
    });
    this.opened = new Counter({ name: "mcp_sessions_opened_total", help: "MCP initializes answered with a session on this gateway", registers: [opts.metrics.registry] });
  }

  /** The session with this id on this replica. */
  get(id: string): McpSession | undefined {
    return this.sessions.get(id);
  }

  /**
   * A new session for an initialize from `req`'s client, started and ready for the initialize
   * itself; or why not (the caps, or the replica stopping), when the initialize is answered
   * without a session.
   */
  async open(req: Request): Promise<McpSession | CapRefusal | "stopping"> {
    if (this.stopping) return "stopping";
    const client = clientOf(req);
    const refusal = this.caps.take(client);
    if (refusal) {
      this.refused.inc({ reason: refusal });
      return refusal;
    }
    const session = new McpSession({
      deps: this.opts.deps,
      client,
      maxMessageBytes: this.opts.maxMessageBytes,
      onOpen: (s) => this.sessions.set(s.id, s),
      onClose: (s) => {
        this.sessions.delete(s.id);
        this.caps.give(client);
      },
    });
    await session.start();
    this.opened.inc();
    return session;
  }

  /** Ends every session idle past the limit: no request and no GET stream for idleMs. */
  endIdle(now = Date.now()): void {
    for (const session of this.sessions.values()) {
      if (session.openStreams === 0 && now - session.lastActive > this.opts.limits.idleMs) void session.close();
    }
  }

  /** Ends every session (their GET streams end; clients initialize again, elsewhere) and opens no more. */
  async stop(): Promise<void> {
    this.stopping = true;
    clearInterval(this.sweep);
    await Promise.allSettled([...this.sessions.values()].map((s) => s.close()));
  }
}
