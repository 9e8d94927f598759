import http from "node:http";
import net from "node:net";

/**
 * A pod's address as Prometheus scrapes it: a fixed loopback port forwarding to the health
 * port of whichever replica runs now (a service restarted in a test gets a new ephemeral
 * health port; in a cluster its new pod is found by service discovery). `cut()` refuses
 * Prometheus's connections while the replica runs and stays ready (a network policy that
 * no longer admits the monitoring namespace); `restore()` admits them again.
 */
export class PodAddress {
  private readonly server = net.createServer((s) => this.accept(s));
  private readonly open = new Set<net.Socket>();
  port = 0;
  /** The health port of the replica behind this address; null while none runs. */
  target: number | null = null;
  private refusing = false;

  constructor(
    readonly service: string,
    readonly pod: string,
  ) {}

  async listen(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.port = (this.server.address() as net.AddressInfo).port;
    return this;
  }

  private accept(client: net.Socket) {
    client.on("error", () => undefined);
    if (this.refusing || this.target === null) return void client.resetAndDestroy();
    const upstream = net.connect({ host: "127.0.0.1", port: this.target });
    upstream.on("error", () => client.destroy());
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
    this.open.add(client);
    client.once("close", () => this.open.delete(client));
    client.pipe(upstream);
    upstream.pipe(client);
  }

  cut(): void {
    this.refusing = true;
    for (const s of this.open) s.resetAndDestroy();
  }

  restore(): void {
    this.refusing = false;
  }

  async close(): Promise<void> {
    for (const s of this.open) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** GET /readyz on a local health port, as a kubelet's readiness probe asks it. */
async function ready(port: number, timeoutMs: number): Promise<boolean> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(timeoutMs) });
    await res.arrayBuffer();
    return res.status === 200;
  } catch {
    return false;
  }
}

/**
 * A stand-in for kube-state-metrics at its /metrics boundary (no cluster runs here): for each
 * Deployment, `kube_deployment_spec_replicas` (what the test says it wants) and
 * `kube_deployment_status_replicas_available` (how many of its replicas answer their readiness
 * probe, GET /readyz on their health port, as the manifests' readinessProbe asks), asked at
 * each scrape. Labels as kube-state-metrics gives them (namespace, deployment), so Prometheus
 * scrapes it with honor_labels.
 */
export class KubeStateMetricsStandIn {
  private readonly server = http.createServer((req, res) => void this.handle(req, res));
  port = 0;

  constructor(
    readonly namespace: string,
    /** Each Deployment's wanted replicas and the health ports of the replicas it runs now. */
    private readonly deployments: Record<string, { replicas: number; healthPorts: () => number[] }>,
    private readonly probeTimeoutMs = 800,
  ) {}

  async listen(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.port = (this.server.address() as net.AddressInfo).port;
    return this;
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse) {
    if (req.url !== "/metrics") return void res.writeHead(404).end();
    const rows = await Promise.all(
      Object.entries(this.deployments).map(async ([deployment, d]) => {
        const answers = await Promise.all(d.healthPorts().map((p) => ready(p, this.probeTimeoutMs)));
        return { deployment, spec: d.replicas, available: answers.filter(Boolean).length };
      }),
    );
    const labels = (deployment: string) => `{namespace="${this.namespace}",deployment="${deployment}"}`;
    const text = [
      "# HELP kube_deployment_spec_replicas Number of desired pods for a deployment.",
      "# TYPE kube_deployment_spec_replicas gauge",
      ...rows.map((r) => `kube_deployment_spec_replicas${labels(r.deployment)} ${r.spec}`),
      "# HELP kube_deployment_status_replicas_available The number of available replicas per deployment.",
      "# TYPE kube_deployment_status_replicas_available gauge",
      ...rows.map((r) => `kube_deployment_status_replicas_available${labels(r.deployment)} ${r.available}`),
      "",
    ].join("\n");
    res.writeHead(200, { "content-type": "text/plain; version=0.0.4" }).end(text);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
