import { randomUUID } from "node:crypto";
import { MCP_SESSION_DEFAULTS } from "@board/proto";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { IsomorphicHeaders } from "@modelcontextprotocol/sdk/types.js";
import type { Request, Response } from "express";
import { CREDENTIAL_HEADERS } from "../http/headers.js";
import type { ReadDeps } from "../reads/read.js";
import type { McpCaller } from "./call-tool.js";
import { buildMcpServer, type ResourceSubscriptions } from "./server.js";

export interface McpSessionOptions {
  deps: ReadDeps;
  /** The client address of the initialize request: the session's anonymous burst. */
  client: string;
  maxMessageBytes: number;
  /** Called once the transport has given the session its id (before the initialize answer is sent). */
  onOpen(session: McpSession): void;
  /** Called once when the session ends: DELETE, idle, or the replica stopping. */
  onClose(session: McpSession): void;
}

/**
 * One MCP session on this replica: its server and transport (Streamable HTTP with
 * Mcp-Session-Id, plain JSON answers to POSTs, server notifications on the GET stream), the
 * resources it subscribed to, and when it was last used. Credentials are read from each
 * request, not kept: a session id that leaks opens no licence.
 */
export class McpSession implements ResourceSubscriptions {
  id = "";
  readonly subscriptions = new Set<string>();
  lastActive = Date.now();
  /** GET streams open (the transport allows one): a session that holds one is listening, not idle. */
  openStreams = 0;
  private readonly server: Server;
  private readonly transport: StreamableHTTPServerTransport;
  private closed = false;

  constructor(private readonly opts: McpSessionOptions) {
    const caller = (headers: IsomorphicHeaders | undefined): McpCaller => {
      const license = headers?.[CREDENTIAL_HEADERS.license.toLowerCase()];
      const key = (Array.isArray(license) ? license[0] : license)?.trim();
      return { address: opts.client, licenseKey: key || undefined };
    };
    this.server = buildMcpServer(opts.deps, { caller, subscriptions: this });
    this.transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      enableJsonResponse: true,
      maxRequestBodySize: opts.maxMessageBytes,
      // A comment on the GET stream when nothing else goes: proxies see traffic and do not close it.
      keepAliveMs: MCP_SESSION_DEFAULTS.keepaliveSeconds * 1000,
      onsessioninitialized: (id) => {
        this.id = id;
        opts.onOpen(this);
      },
      // DELETE: the transport closes itself after this returns.
      onsessionclosed: () => this.ended(),
    });
    this.transport.onclose = () => this.ended();
  }

  /** Connects the server to the transport; then `handle` answers the session's requests. */
  async start(): Promise<void> {
    await this.server.connect(this.transport);
  }

  /** One request of the session (its initialize, whose body was read already, comes with `body`). */
  async handle(req: Request, res: Response, body?: unknown): Promise<void> {
    this.lastActive = Date.now();
    if (req.method === "GET") {
      this.openStreams++;
      res.once("close", () => {
        this.openStreams--;
        this.lastActive = Date.now();
      });
    }
    await this.transport.handleRequest(req, res, body);
  }

  subscribe(uri: string): void {
    this.subscriptions.add(uri);
  }

  unsubscribe(uri: string): void {
    this.subscriptions.delete(uri);
  }

  /** notifications/resources/updated, on the session's GET stream (dropped when none is open: the client reads again when it reconnects). */
  async updated(uri: string): Promise<void> {
    if (this.closed || !this.subscriptions.has(uri)) return;
    await this.server.sendResourceUpdated({ uri });
  }

  /** Ends the session: its GET stream ends, and a request with its id meets 404 from now on. */
  async close(): Promise<void> {
    this.ended();
    await this.server.close();
  }

  private ended(): void {
    if (this.closed) return;
    this.closed = true;
    this.opts.onClose(this);
  }
}
