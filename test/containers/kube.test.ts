// The Kubernetes manifests on podman: `podman kube play` of the rendered dev overlay, each pod
// passing its readiness probe. Debian's podman 4.3 plays Pods, Deployments and ConfigMaps; the
// rest is brought to it as close to a cluster as it goes, and what it cannot enforce is listed:
// - StatefulSets (NATS, Postgres): each replica's pod template played as a Pod named
//   <statefulset>-<i>, its volume claim a host folder owned by the pod's user, its configMap and
//   secret volumes host folders holding those files (4.3 mounts neither kind);
// - Secrets (the operator creates them; the overlay renders none): podman secrets, read by
//   `secretKeyRef` as 4.3 reads them (a JSON map of base64 values): each service's database
//   role (board-db-<service>), the dev Postgres superuser (board-db-superuser), bus-seeds,
//   identity's, payments' and scanner-ingest's, with values made here;
// - the bus's streams, the operator's deploy step (README "Kubernetes"): once NATS is ready,
//   identity's image runs `node dist/bus-streams.js` as the operator (its seed a podman secret
//   mounted for that one container), where the operator would run `npm run bus-streams` through
//   a port-forward; no service may create a stream, and board, metering and scanner-ingest
//   wait for theirs;
// - Services: the cluster DNS they give, as network aliases of the pods each one selects (and
//   <pod>.<serviceName> for a StatefulSet's pods); their port mapping is not emulated;
// - readiness probes: 4.3 runs none (it turns liveness probes into health checks, and those need
//   systemd), so this test is the kubelet: it runs each container's readinessProbe (httpGet from
//   a prober container on the pods' network, exec inside the container) until it passes.
// Not enforced by podman at all, and held by the render checks of test/deploy instead:
// NOT_ENFORCED below (a PrometheusRule is the Prometheus operator's: promtool checks it there).

import { chmodSync, chownSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { stringify } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kindOf, named, nameOf, ofKind, podTemplate, renderOverlay, selects } from "../deploy/manifests.js";
import { arr, obj, root, SERVICES, type Obj } from "../deploy/tools.js";
import { startEngine, type Engine } from "./engine.js";
import { BASE_IMAGE, serviceImage, STAND_IN_IMAGES } from "./images.js";

const NETWORK = "board-kube";
/** Kinds kube play cannot enforce: each is checked by the render tests (test/deploy/kustomize.test.ts). */
const NOT_ENFORCED = ["v1/Namespace", "v1/ServiceAccount", "networking.k8s.io/v1/NetworkPolicy", "networking.k8s.io/v1/Ingress", "autoscaling/v2/HorizontalPodAutoscaler", "policy/v1/PodDisruptionBudget", "monitoring.coreos.com/v1/PrometheusRule"];
const PLAYED = ["apps/v1/Deployment", "v1/ConfigMap"];
const CONVERTED = ["apps/v1/StatefulSet", "v1/Service"];
/** The pinned third-party images, and their stand-ins here (no registry). */
const STAND_IN_FOR = (image: string) => (image.startsWith("nats:") ? STAND_IN_IMAGES.nats : image.startsWith("postgres:") ? STAND_IN_IMAGES.postgres : image);
const READY_WITHIN_MS = 300_000;
/** The services that own a schema: each connects as its own Postgres role (Secret board-db-<service>). */
const DATABASE_SERVICES = ["board", "identity", "metering", "payments"] as const;
/** The operator's seed, a podman secret for the bus-streams container only (never a kube play Secret: it is not in the cluster). */
const OPERATOR_SEED_SECRET = "board-kube-operator-seed";

let engine: Engine;
let work: string;
let objects: Obj[];
const played: { file: string; pod: string; containers: Obj[] }[] = [];
const secrets: string[] = [];

const all = (kind: string) => ofKind(objects, kind);

/** The names a pod answers to: each Service selecting it, and <pod>.<serviceName> for a StatefulSet's. */
function aliases(labels: Record<string, string>, extra: string[] = []): string[] {
  const services = all("Service").filter((s) => selects({ matchLabels: obj(s.spec, "service spec").selector }, labels));
  return [...new Set([...services.map(nameOf), ...extra])];
}

/** A podman secret as kube play 4.3 reads it for secretKeyRef: a JSON map of base64 values. */
function createSecret(name: string, data: Record<string, string>): void {
  const json = JSON.stringify(Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString("base64")])));
  engine.podman(["secret", "rm", name], { allowFailure: true });
  // From a file (0600, removed with the work folder): podman takes "-" only from a named pipe.
  const file = path.join(work, `secret-${name}.json`);
  writeFileSync(file, json, { mode: 0o600 });
  engine.podman(["secret", "create", name, file]);
  secrets.push(name);
}

/** A host folder for a pod's volume, owned by the pod's user as fsGroup would make it. */
function hostFolder(name: string, uid: number, gid: number, files: Record<string, string> = {}): string {
  const dir = path.join(work, "volumes", name);
  mkdirSync(dir, { recursive: true });
  for (const [file, text] of Object.entries(files)) writeFileSync(path.join(dir, file), text);
  chownSync(dir, uid, gid);
  return dir;
}

/**
 * podman 4.3 publishes every containerPort on the host (a cluster does not; the host's own
 * Postgres holds 5432 here): the played copy has none. Pods reach each other on the network by
 * address, and the probes read the ports from the manifest as rendered.
 */
function withoutContainerPorts(workload: Obj): Obj {
  const strip = (spec: Obj): Obj => ({ ...spec, containers: arr(spec.containers, "containers").map((c) => ({ ...obj(c, "container"), ports: undefined })) });
  const spec = obj(workload.spec, "spec");
  if (workload.kind === "Pod") return { ...workload, spec: strip(spec) };
  const template = obj(spec.template, "template");
  return { ...workload, spec: { ...spec, template: { ...template, spec: strip(obj(template.spec, "pod spec")) } } };
}

/** Plays one pod (a Deployment, or a Pod) with the ConfigMaps it reads, on the network, under its aliases. */
async function play(name: string, workload: Obj, podName: string, labels: Record<string, string>, extraAliases: string[] = []): Promise<void> {
  const file = path.join(work, `${name}.yaml`);
  writeFileSync(file, [...all("ConfigMap"), withoutContainerPorts(workload)].map((o) => stringify(o)).join("---\n"));
  const names = aliases(labels, extraAliases);
  const network = names.length > 0 ? `${NETWORK}:${names.map((a) => `alias=${a}`).join(",")}` : NETWORK;
  const res = await engine.exec("podman", ["kube", "play", `--network=${network}`, file], { timeoutMs: 120_000 });
  if (res.code !== 0) throw new Error(`podman kube play ${name} failed (${res.code}):\n${res.stderr}`);
  const spec = obj(obj(workload.spec, "spec").template ? podTemplate(workload).spec : workload.spec, "pod spec");
  played.push({ file, pod: podName, containers: arr(spec.containers, "containers").map((c) => obj(c, "container")) });
}

/** A StatefulSet's replica as a Pod: its template, the stand-in image, its volumes as host folders. */
function statefulPod(set: Obj, index: number): { pod: Obj; name: string; labels: Record<string, string> } {
  const name = `${nameOf(set)}-${index}`;
  const { labels, spec } = podTemplate(set);
  const security = obj(spec.securityContext, "securityContext");
  const uid = Number(security.runAsUser);
  const gid = Number(security.fsGroup ?? security.runAsGroup);
  const volumes = arr(spec.volumes, "volumes").map((v) => {
    const volume = obj(v, "volume");
    const volumeName = String(volume.name);
    if (volume.configMap) {
      const source = obj(volume.configMap, "configMap");
      const map = named(objects, "ConfigMap", String(source.name))!;
      const dir = hostFolder(`${name}-${volumeName}`, uid, gid, map.data as Record<string, string>);
      // The files' mode as the kubelet writes them (Postgres's init script is run only when executable).
      const mode = typeof source.defaultMode === "number" ? source.defaultMode : 0o644;
      for (const file of Object.keys(obj(map.data, "data"))) chmodSync(path.join(dir, file), mode);
      return { name: volumeName, hostPath: { path: dir, type: "Directory" } };
    }
    if (volume.secret) {
      const secretName = String(obj(volume.secret, "secret").secretName);
      return { name: volumeName, hostPath: { path: hostFolder(`${name}-${volumeName}`, uid, gid, secretFiles[secretName] ?? {}), type: "Directory" } };
    }
    return { name: volumeName, hostPath: { path: hostFolder(`${name}-${volumeName}`, uid, gid), type: "Directory" } };
  });
  for (const claim of arr(obj(set.spec, "spec").volumeClaimTemplates, "volumeClaimTemplates")) {
    const claimName = nameOf(obj(claim, "claim"));
    volumes.push({ name: claimName, hostPath: { path: hostFolder(`${name}-${claimName}`, uid, gid), type: "Directory" } });
  }
  // A mount inside another (NATS's /etc/nats/auth in /etc/nats) needs its mount point in the
  // outer folder: the runtime cannot make it once the outer one is mounted read-only.
  const hostOf = new Map(volumes.map((v) => [v.name, v.hostPath.path]));
  const mounts = arr(spec.containers, "containers").flatMap((c) => arr(obj(c, "container").volumeMounts, "volumeMounts").map((m) => obj(m, "mount") as { name: string; mountPath: string }));
  for (const inner of mounts)
    for (const outer of mounts)
      if (inner.mountPath.startsWith(`${outer.mountPath}/`)) mkdirSync(path.join(hostOf.get(outer.name)!, path.relative(outer.mountPath, inner.mountPath)), { recursive: true });
  const containers = arr(spec.containers, "containers").map((c) => {
    const container = obj(c, "container");
    // The pod's own name where the template asks for it (fieldRef metadata.name).
    const env = arr(container.env, "env").map((e) => {
      const entry = obj(e, "env");
      const field = (entry.valueFrom as { fieldRef?: { fieldPath?: string } } | undefined)?.fieldRef?.fieldPath;
      return field === "metadata.name" ? { name: entry.name, value: name } : entry;
    });
    return { ...container, image: STAND_IN_FOR(String(container.image)), env };
  });
  return { pod: { apiVersion: "v1", kind: "Pod", metadata: { name, labels }, spec: { ...spec, containers, volumes } }, name, labels };
}

/** What each secret volume holds (files), filled in beforeAll. */
const secretFiles: Record<string, Record<string, string>> = {};

interface Probe {
  pod: string;
  container: string;
  http?: string;
  exec?: string[];
}

/** Every container's readinessProbe, resolved to a URL on the pod's DNS name or a command inside it. */
function readinessProbes(): Probe[] {
  return played.flatMap(({ pod, containers }) =>
    containers.flatMap((c): Probe[] => {
      const probe = c.readinessProbe as { httpGet?: { path: string; port: number | string }; exec?: { command: string[] } } | undefined;
      if (!probe) return [];
      const container = `${pod}-${String(c.name)}`;
      if (probe.exec) return [{ pod, container, exec: probe.exec.command }];
      const ports = arr(c.ports, "ports").map((p) => obj(p, "port"));
      const port = typeof probe.httpGet!.port === "number" ? probe.httpGet!.port : Number(ports.find((p) => p.name === probe.httpGet!.port)!.containerPort);
      return [{ pod, container, http: `http://${pod}:${port}${probe.httpGet!.path}` }];
    }),
  );
}

/** One round of probes: httpGet from a prober container on the network (as the kubelet reaches the pod), exec inside the container. */
async function probeOnce(probes: Probe[]): Promise<Record<string, boolean>> {
  const http = probes.filter((p) => p.http);
  const script = `Promise.all(${JSON.stringify(http.map((p) => p.http))}.map(u=>fetch(u,{signal:AbortSignal.timeout(3000)}).then(r=>r.status>=200&&r.status<400,()=>false))).then(r=>console.log(JSON.stringify(r)))`;
  const run = await engine.exec("podman", ["run", "--rm", `--network=${NETWORK}`, BASE_IMAGE, "node", "-e", script], { timeoutMs: 30_000 });
  const httpResults = run.code === 0 ? (JSON.parse(run.stdout.trim()) as boolean[]) : http.map(() => false);
  const results: Record<string, boolean> = {};
  http.forEach((p, i) => (results[p.container] = httpResults[i] ?? false));
  for (const p of probes.filter((q) => q.exec)) results[p.container] = (await engine.exec("podman", ["exec", p.container, ...p.exec!], { timeoutMs: 10_000 })).code === 0;
  return results;
}

async function untilReady(pods: string[]): Promise<Record<string, number>> {
  const started = performance.now();
  const readyAt: Record<string, number> = {};
  const probes = readinessProbes().filter((p) => pods.includes(p.pod));
  for (;;) {
    const results = await probeOnce(probes.filter((p) => !(p.container in readyAt)));
    for (const [container, ok] of Object.entries(results)) if (ok) readyAt[container] = Math.round((performance.now() - started) / 1000);
    if (probes.every((p) => p.container in readyAt)) return readyAt;
    if (performance.now() - started > READY_WITHIN_MS) {
      const waiting = probes.filter((p) => !(p.container in readyAt)).map((p) => p.container);
      const logs = waiting.map((c) => `--- ${c}\n${engine.podman(["logs", "--tail", "30", c], { allowFailure: true }).stderr}`).join("\n");
      throw new Error(`not ready within ${READY_WITHIN_MS / 1000} s: ${waiting.join(", ")}\n${logs}`);
    }
    await new Promise((r) => setTimeout(r, 2_000));
  }
}

let readiness: Record<string, number> = {};
/** The deploy step's output (`<stream>: created|updated` per stream) and how long it took. */
let busStreams: { code: number | null; stdout: string; stderr: string; seconds: number } | undefined;

/**
 * The operator's deploy step for the bus's streams, once NATS is ready: identity's image runs
 * `node dist/bus-streams.js` on the pods' network with the operator's seed (NATS_NKEY_SEED_FILE),
 * as the operator runs `npm run bus-streams` through a port-forward to the Service nats.
 */
async function runBusStreams(): Promise<void> {
  const started = performance.now();
  // The servers' readiness (js-server-only) comes before the cluster has elected its JetStream
  // leader: a refusal then is answered as an operator would answer it, by running the step again.
  let res = await busStreamsOnce();
  for (let attempt = 1; res.code === 1 && attempt < 8; attempt++) {
    await new Promise((r) => setTimeout(r, 5_000));
    res = await busStreamsOnce();
  }
  busStreams = { ...res, seconds: Math.round((performance.now() - started) / 100) / 10 };
  if (res.code !== 0) throw new Error(`the bus-streams deploy step failed (${res.code}):\n${res.stdout}${res.stderr}`);
}

function busStreamsOnce() {
  return engine.exec(
    "podman",
    ["run", "--rm", `--network=${NETWORK}`, "--read-only", "--cap-drop=ALL", "--security-opt=no-new-privileges",
      // Mounted for the image's user only (0400), at /run/secrets/<name> (a tmpfs: the root is read-only).
      "--tmpfs=/run/secrets", `--secret=${OPERATOR_SEED_SECRET},type=mount,uid=10001,gid=10001,mode=0400`,
      "--env=NATS_URL=nats://nats:4222", `--env=NATS_NKEY_SEED_FILE=/run/secrets/${OPERATOR_SEED_SECRET}`,
      serviceImage("identity"), "node", "dist/bus-streams.js"],
    { timeoutMs: 120_000 },
  );
}

beforeAll(async () => {
  engine = await startEngine(path.join(root, ".data", "containers", "engine-kube"));
  work = mkdtempSync(path.join(os.tmpdir(), "board-kube-"));
  objects = renderOverlay("dev");
  for (const set of all("StatefulSet")) for (let i = 0; i < 3; i++) await engine.exec("podman", ["pod", "rm", "--force", `${nameOf(set)}-${i}`]);
  for (const d of all("Deployment")) await engine.exec("podman", ["pod", "rm", "--force", `${nameOf(d)}-pod-0`]);
  engine.podman(["network", "rm", "--force", NETWORK], { allowFailure: true });
  engine.podman(["network", "create", NETWORK]);

  // The Secrets an operator creates (README "Kubernetes"), with values made here.
  const busDir = path.join(work, "bus");
  const creds = spawnSync(process.execPath, ["--import", "tsx", path.join(root, "scripts/bus-credentials.ts"), busDir], { cwd: root, encoding: "utf8" });
  if (creds.status !== 0) throw new Error(`bus-credentials failed: ${creds.stderr}`);
  createSecret("bus-seeds", Object.fromEntries(SERVICES.map((s) => [s, readFileSync(path.join(busDir, "seeds", `${s}.nk`), "utf8").trim()])));
  secretFiles["nats-authorization"] = { "authorization.conf": readFileSync(path.join(busDir, "authorization.conf"), "utf8") };
  // The operator's seed stays out of the cluster: only the deploy step's container gets it.
  engine.podman(["secret", "rm", OPERATOR_SEED_SECRET], { allowFailure: true });
  engine.podman(["secret", "create", OPERATOR_SEED_SECRET, path.join(busDir, "seeds", "operator.nk")]);
  secrets.push(OPERATOR_SEED_SECRET);
  const password = () => Buffer.from(crypto.getRandomValues(new Uint8Array(24))).toString("hex");
  createSecret("board-db-superuser", { password: password() });
  for (const s of DATABASE_SERVICES) {
    const pw = password();
    createSecret(`board-db-${s}`, { username: s, password: pw, uri: `postgresql://${s}:${pw}@board-db-rw:5432/board` });
  }
  createSecret("identity-secrets", { IDENTITY_SECRET: Buffer.from(crypto.getRandomValues(new Uint8Array(48))).toString("base64") });
  createSecret("payments-secrets", {});
  createSecret("scanner-ingest-secrets", {});

  // The bus and the database first, as the services wait for them.
  for (const set of all("StatefulSet")) {
    const replicas = Number(obj(set.spec, "spec").replicas ?? 1);
    const serviceName = String(obj(set.spec, "spec").serviceName);
    for (let i = 0; i < replicas; i++) {
      const { pod, name, labels } = statefulPod(set, i);
      await play(name, pod, name, labels, [`${name}.${serviceName}`]);
    }
  }
  readiness = await untilReady(played.map((p) => p.pod));
  await runBusStreams();
  for (const d of all("Deployment")) await play(nameOf(d), d, `${nameOf(d)}-pod-0`, podTemplate(d).labels);
  readiness = { ...readiness, ...(await untilReady(played.map((p) => p.pod))) };
}, 900_000);

afterAll(async () => {
  for (const p of played) await engine.exec("podman", ["kube", "play", "--down", p.file], { timeoutMs: 120_000 });
  for (const s of secrets) engine.podman(["secret", "rm", s], { allowFailure: true });
  engine?.podman(["network", "rm", "--force", NETWORK], { allowFailure: true });
  await engine?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
}, 300_000);

describe("podman kube play of the dev overlay", () => {
  it("every rendered kind is played, converted, or listed as not enforced by podman", () => {
    const kinds = [...new Set(objects.map(kindOf))].sort();
    for (const kind of kinds) expect([...PLAYED, ...CONVERTED, ...NOT_ENFORCED], kind).toContain(kind);
  });

  it("every pod starts and passes its readiness probe: NATS (three servers, one JetStream cluster), Postgres and the six services", () => {
    process.stdout.write(`kube play readiness (seconds after each group was played): ${JSON.stringify(readiness)}\n`);
    const pods = played.map((p) => p.pod).sort();
    expect(pods).toEqual(["board-db-0", "nats-0", "nats-1", "nats-2", ...SERVICES.map((s) => `${s}-pod-0`)].sort());
    for (const p of played) expect(engine.podman(["pod", "inspect", "--format", "{{.State}}", p.pod]).stdout.trim(), p.pod).toBe("Running");
    expect(Object.keys(readiness).length).toBe(readinessProbes().length);
  });

  it("the operator's deploy step creates the bus's streams once NATS is ready (no service may)", () => {
    process.stdout.write(`bus-streams deploy step (${busStreams?.seconds} s):\n${busStreams?.stdout}`);
    expect(busStreams?.code, busStreams?.stderr).toBe(0);
    expect(busStreams!.stdout).toMatch(/^BOARD: (created|updated)$/m);
    expect(busStreams!.stdout).toMatch(/^READS: (created|updated)$/m);
  });

  it("each service connects to Postgres as its own role, from its own Secret", () => {
    for (const s of DATABASE_SERVICES) {
      const url = new URL(engine.podman(["exec", `${s}-pod-0-${s}`, "printenv", "DATABASE_URL"]).stdout.trim());
      expect(url.username, s).toBe(s);
      expect(url.host, s).toBe("board-db-rw:5432");
    }
  });

  it("each service container runs as the pod's securityContext says: 10001, no capability, no privilege escalation, read-only root", () => {
    for (const s of SERVICES) {
      const container = `${s}-pod-0-${s}`;
      const pid = Number(engine.podman(["inspect", "--format", "{{.State.Pid}}", container]).stdout.trim());
      const status = readFileSync(`/proc/${pid}/status`, "utf8");
      expect(status, s).toMatch(/^Uid:\t10001\t10001\t10001\t10001$/m);
      expect(status, s).toMatch(/^CapEff:\t0000000000000000$/m);
      expect(status, s).toMatch(/^NoNewPrivs:\t1$/m);
      expect(engine.podman(["inspect", "--format", "{{.HostConfig.ReadonlyRootfs}}", container]).stdout.trim(), s).toBe("true");
    }
  });
});
