import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePort, killHard } from "@board/service-kit/testing";
import { stringify } from "yaml";

/** The prometheus server binary (Debian's `prometheus` package, which .ci/run installs); its absence fails with how to get it. */
export function prometheusBinary(): string {
  for (const dir of ["/usr/bin", "/usr/local/bin", "/bin"]) {
    const p = path.join(dir, "prometheus");
    if (existsSync(p)) return p;
  }
  throw new Error("prometheus is not installed: the alerts test runs the server from Debian's prometheus package (apt-get install prometheus)");
}

/** One alert as Prometheus's HTTP API lists it (/api/v1/alerts: pending and firing ones only). */
export interface ApiAlert {
  labels: Record<string, string>;
  state: "pending" | "firing";
  activeAt: string;
  value: string;
}

/**
 * A real Prometheus server as a process of the test's own: its config and rule file written to a
 * temporary folder, its TSDB there too, listening on a free loopback port. Read through its HTTP
 * API, as an operator's tools would.
 */
export class PrometheusServer {
  private child: ChildProcess | null = null;
  private stderr = "";
  private constructor(
    readonly url: string,
    private readonly dir: string,
  ) {}

  /** Starts it with `config` (prometheus.yml as an object; `rule_files` is set to the rules written beside it) and `rules` (a rule file's text). */
  static async start(opts: { config: Record<string, unknown>; rules: string; args?: string[] }): Promise<PrometheusServer> {
    const bin = prometheusBinary();
    const dir = mkdtempSync(path.join(tmpdir(), "prometheus-e2e-"));
    writeFileSync(path.join(dir, "rules.yml"), opts.rules);
    writeFileSync(path.join(dir, "prometheus.yml"), stringify({ ...opts.config, rule_files: [path.join(dir, "rules.yml")] }));
    const port = await freePort();
    const server = new PrometheusServer(`http://127.0.0.1:${port}`, dir);
    const child = spawn(
      bin,
      [
        `--config.file=${path.join(dir, "prometheus.yml")}`,
        `--storage.tsdb.path=${path.join(dir, "data")}`,
        `--web.listen-address=127.0.0.1:${port}`,
        ...(opts.args ?? []),
      ],
      { stdio: ["ignore", "ignore", "pipe"] },
    );
    server.child = child;
    child.stderr?.on("data", (d: Buffer) => (server.stderr = (server.stderr + d.toString()).slice(-4000)));
    const deadline = Date.now() + 30_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`prometheus exited (${child.exitCode}): ${server.stderr}`);
      const ready = await fetch(`${server.url}/-/ready`).then(
        (r) => r.ok,
        () => false,
      );
      if (ready) return server;
      if (Date.now() > deadline) throw new Error(`prometheus not ready in 30 s: ${server.stderr}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  private async api<T>(pathAndQuery: string): Promise<T> {
    const res = await fetch(`${this.url}${pathAndQuery}`, { signal: AbortSignal.timeout(5000) });
    const body = (await res.json()) as { status: string; data: T; error?: string };
    if (body.status !== "success") throw new Error(`prometheus ${pathAndQuery}: ${body.error ?? res.status}`);
    return body.data;
  }

  /** Every pending and firing alert (GET /api/v1/alerts). */
  async alerts(): Promise<ApiAlert[]> {
    return (await this.api<{ alerts: ApiAlert[] }>("/api/v1/alerts")).alerts;
  }

  /** An instant query's vector (GET /api/v1/query). */
  async query(expr: string): Promise<{ metric: Record<string, string>; value: [number, string] }[]> {
    return (await this.api<{ result: { metric: Record<string, string>; value: [number, string] }[] }>(`/api/v1/query?query=${encodeURIComponent(expr)}`)).result;
  }

  /** The scrape targets and their health (GET /api/v1/targets). */
  async targets(): Promise<{ labels: Record<string, string>; health: string; lastError: string }[]> {
    return (await this.api<{ activeTargets: { labels: Record<string, string>; health: string; lastError: string }[] }>("/api/v1/targets")).activeTargets;
  }

  /** What it said on stderr last (for a failure's message). */
  log(): string {
    return this.stderr;
  }

  async stop(): Promise<void> {
    const child = this.child;
    this.child = null;
    if (child && child.exitCode === null) {
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      child.kill("SIGTERM");
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
      await killHard(child);
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}
