import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Registry } from "prom-client";
import type { Logger } from "./log.js";

export type ReadinessCheck = () => Promise<void> | void;

export interface HealthServer {
  readonly port: number;
  close(): Promise<void>;
}

const CHECK_TIMEOUT_MS = 1500;

/**
 * The per-service operations port: /healthz (the process is alive), /readyz (every
 * dependency answers), /metrics (Prometheus).
 */
export async function startHealthServer(opts: {
  port: number;
  host?: string;
  checks: Record<string, ReadinessCheck>;
  /** More of the service's own state for the /readyz body, beside status and checks (it does not decide readiness). */
  describe?: () => Record<string, unknown>;
  registry: Registry;
  log: Logger;
}): Promise<HealthServer> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    if (req.method !== "GET" && req.method !== "HEAD") return send(res, 405, { status: "method_not_allowed" });
    if (path === "/healthz") return send(res, 200, { status: "alive" });
    if (path === "/readyz") {
      void readiness(opts.checks).then(({ ready, checks }) => send(res, ready ? 200 : 503, { status: ready ? "ready" : "not_ready", checks, ...opts.describe?.() }));
      return;
    }
    if (path === "/metrics") {
      void opts.registry.metrics().then(
        (text) => {
          res.writeHead(200, { "content-type": opts.registry.contentType });
          res.end(text);
        },
        () => send(res, 500, { status: "metrics_failed" }),
      );
      return;
    }
    send(res, 404, { status: "not_found" });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port, opts.host ?? "0.0.0.0", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  opts.log.info({ port }, "health port listening");
  return {
    port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function readiness(checks: Record<string, ReadinessCheck>) {
  const results: Record<string, string> = {};
  await Promise.all(
    Object.entries(checks).map(async ([name, check]) => {
      try {
        await Promise.race([
          Promise.resolve().then(check),
          new Promise((_, reject) => setTimeout(() => reject(new Error("timeout")), CHECK_TIMEOUT_MS).unref()),
        ]);
        results[name] = "ok";
      } catch {
        results[name] = "unavailable";
      }
    }),
  );
  return { ready: Object.values(results).every((r) => r === "ok"), checks: results };
}

function send(res: http.ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}
