import { readFileSync } from "node:fs";
import path from "node:path";
import { API_VERSION, BOARD_EVENTS_PATH, MCP_SESSION_DEFAULTS } from "@board/proto";
import { beforeAll, describe, expect, test } from "vitest";
import { GatewayEnv } from "../../services/gateway/src/env.js";
import { SCANNER_PROCESS_ENV } from "../../services/scanner-ingest/src/process-env.js";
import { configIssues, SECRET_STAND_INS, SECRET_VARIABLE } from "./env-schemas.js";
import {
  allowsPod,
  checkCertificate,
  checkScheduledBackup,
  containers,
  idOf,
  kindOf,
  MODELS,
  named,
  nameOf,
  ofKind,
  OVERLAYS,
  podTemplate,
  renderOverlay,
  rulesFor,
  selects,
  workloads,
  type Overlay,
} from "./manifests.js";
import { checkPrometheusRule } from "./prometheus-rule.js";
import { arr, DATABASE_SERVICES, isObj, obj, root, SERVICES, str, type Obj, type ServiceName } from "./tools.js";

const HEALTH_PORT = 9100;
const INGRESS_CONTROLLER_NAMESPACE = "ingress-nginx";
const INTERNET_SERVICES: readonly ServiceName[] = ["payments", "scanner-ingest"];
const HPA_SERVICES: readonly ServiceName[] = ["gateway", "board"];

const rendered = {} as Record<Overlay, Obj[]>;
beforeAll(() => {
  for (const overlay of OVERLAYS) rendered[overlay] = renderOverlay(overlay);
});

/** The Deployment of one of the six services; its absence fails the test that asks. */
function deploymentOf(objects: Obj[], service: ServiceName): Obj {
  const d = named(objects, "Deployment", service);
  if (!d) throw new Error(`no Deployment ${service}`);
  return d;
}

/** CRDs have no kubernetes-models class: their required fields, checked by hand. */
function checkCustomResource(o: Obj): string[] {
  if (kindOf(o) === "cert-manager.io/v1/Certificate") return checkCertificate(o);
  if (kindOf(o) === "monitoring.coreos.com/v1/PrometheusRule") return checkPrometheusRule(o);
  if (kindOf(o) === "postgresql.cnpg.io/v1/ScheduledBackup") return checkScheduledBackup(o);
  if (kindOf(o) !== "postgresql.cnpg.io/v1/Cluster") return [`${idOf(o)}: ${kindOf(o)} is neither a built-in kind with a model nor a known CRD`];
  const problems: string[] = [];
  const spec = isObj(o.spec) ? o.spec : {};
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(nameOf(o))) problems.push(`${idOf(o)}: metadata.name is not a DNS label`);
  if (!Number.isInteger(spec.instances) || (spec.instances as number) < 1) problems.push(`${idOf(o)}: spec.instances must be a positive integer`);
  const storage = isObj(spec.storage) ? spec.storage : {};
  if (typeof storage.size !== "string" && !isObj(storage.pvcTemplate)) problems.push(`${idOf(o)}: spec.storage.size is required`);
  const initdb = isObj(spec.bootstrap) && isObj(spec.bootstrap.initdb) ? spec.bootstrap.initdb : undefined;
  if (!initdb || typeof initdb.database !== "string" || typeof initdb.owner !== "string")
    problems.push(`${idOf(o)}: spec.bootstrap.initdb.database and owner are required`);
  if (typeof spec.imageName === "string" && (!spec.imageName.includes(":") || spec.imageName.endsWith(":latest")))
    problems.push(`${idOf(o)}: imageName needs an explicit version`);
  return problems;
}

describe.each(OVERLAYS)("kustomize overlay %s", (overlay) => {
  const objects = () => rendered[overlay];

  test("renders offline, and every object is valid for its kind", () => {
    const problems: string[] = [];
    for (const o of objects()) {
      const validate = MODELS[kindOf(o)];
      if (!validate) {
        problems.push(...checkCustomResource(o));
        continue;
      }
      try {
        validate(o).validate();
      } catch (err) {
        problems.push(`${idOf(o)}: ${(err as Error).message}`);
      }
    }
    expect(problems).toEqual([]);
    const namespaces = ofKind(objects(), "Namespace").map(nameOf);
    expect(namespaces).toEqual([`board-${overlay}`]);
    const elsewhere = objects().filter((o) => o.kind !== "Namespace" && obj(o.metadata, "metadata").namespace !== `board-${overlay}`);
    expect(elsewhere.map(idOf)).toEqual([]);
  });

  test("holds no Secret and no secret value: secrets are only referenced", () => {
    expect(ofKind(objects(), "Secret").map(idOf)).toEqual([]);
    const leaks: string[] = [];
    for (const cm of ofKind(objects(), "ConfigMap"))
      for (const key of Object.keys(isObj(cm.data) ? cm.data : {})) if (SECRET_VARIABLE.test(key)) leaks.push(`${idOf(cm)} holds ${key}`);
    for (const w of workloads(objects()))
      for (const c of containers(podTemplate(w).spec))
        for (const e of arr(c.env, "env").map((x) => obj(x, "env"))) {
          const name = str(e.name, "env name");
          if (!SECRET_VARIABLE.test(name)) continue;
          const ref = isObj(e.valueFrom) && isObj(e.valueFrom.secretKeyRef) ? e.valueFrom.secretKeyRef : undefined;
          if (!ref) leaks.push(`${idOf(w)} sets ${name} without a secretKeyRef`);
        }
    expect(leaks).toEqual([]);
  });

  test("every pod runs hardened, with requests, limits and probes", () => {
    const problems: string[] = [];
    const accounts = new Map(ofKind(objects(), "ServiceAccount").map((sa) => [nameOf(sa), sa]));
    for (const w of workloads(objects())) {
      const { spec: pod } = podTemplate(w);
      const at = idOf(w);
      const podSc = isObj(pod.securityContext) ? pod.securityContext : {};
      if (pod.automountServiceAccountToken !== false) problems.push(`${at}: automountServiceAccountToken is not false`);
      const sa = typeof pod.serviceAccountName === "string" ? pod.serviceAccountName : "default";
      if (sa === "default" || !accounts.has(sa)) problems.push(`${at}: runs as ServiceAccount "${sa}", which the manifests do not define`);
      else if (accounts.get(sa)?.automountServiceAccountToken !== false) problems.push(`${at}: ServiceAccount ${sa} mounts its token`);
      for (const hostFlag of ["hostNetwork", "hostPID", "hostIPC"]) if (pod[hostFlag] === true) problems.push(`${at}: ${hostFlag}`);
      for (const c of containers(pod)) {
        const cat = `${at} container ${String(c.name)}`;
        const sc = isObj(c.securityContext) ? c.securityContext : {};
        const effective = (k: string) => (sc[k] !== undefined ? sc[k] : podSc[k]);
        if (effective("runAsNonRoot") !== true) problems.push(`${cat}: runAsNonRoot is not true`);
        const uid = effective("runAsUser");
        if (!Number.isInteger(uid) || (uid as number) <= 0) problems.push(`${cat}: runAsUser is not a numeric non-root UID`);
        const seccomp = effective("seccompProfile");
        if (!isObj(seccomp) || seccomp.type !== "RuntimeDefault") problems.push(`${cat}: seccompProfile is not RuntimeDefault`);
        if (sc.allowPrivilegeEscalation !== false) problems.push(`${cat}: allowPrivilegeEscalation is not false`);
        if (sc.readOnlyRootFilesystem !== true) problems.push(`${cat}: readOnlyRootFilesystem is not true`);
        if (sc.privileged === true) problems.push(`${cat}: privileged`);
        const caps = isObj(sc.capabilities) ? sc.capabilities : {};
        if (!arr(caps.drop, "drop").includes("ALL")) problems.push(`${cat}: capabilities do not drop ALL`);
        if (arr(caps.add, "add").length > 0) problems.push(`${cat}: adds capabilities`);
        const res = isObj(c.resources) ? c.resources : {};
        for (const level of ["requests", "limits"])
          for (const r of ["cpu", "memory"]) if (!isObj(res[level]) || res[level][r] === undefined) problems.push(`${cat}: no ${level}.${r}`);
        for (const probe of ["readinessProbe", "livenessProbe"]) if (!isObj(c[probe])) problems.push(`${cat}: no ${probe}`);
      }
    }
    expect(problems).toEqual([]);
  });

  test("the six services: health port probes, a /tmp emptyDir, configuration from ConfigMaps", () => {
    const problems: string[] = [];
    for (const service of SERVICES) {
      const { spec: pod } = podTemplate(deploymentOf(objects(), service));
      const c = obj(arr(pod.containers, "containers")[0], `${service} container`);
      const health = arr(c.ports, "ports").map((p) => obj(p, "port")).find((p) => p.name === "health");
      if (health?.containerPort !== HEALTH_PORT) problems.push(`${service}: no container port "health" = ${HEALTH_PORT}`);
      const probe = (p: string) => (isObj(c[p]) && isObj(c[p].httpGet) ? c[p].httpGet : undefined);
      const expectProbe = (p: string, path: string) => {
        const get = probe(p);
        if (!get || get.path !== path || get.port !== "health") problems.push(`${service}: ${p} is not GET ${path} on the health port`);
      };
      expectProbe("readinessProbe", "/readyz");
      expectProbe("livenessProbe", "/healthz");
      expectProbe("startupProbe", "/healthz");
      const tmp = arr(c.volumeMounts, "volumeMounts").map((m) => obj(m, "mount")).find((m) => m.mountPath === "/tmp");
      const volume = arr(pod.volumes, "volumes").map((v) => obj(v, "volume")).find((v) => tmp && v.name === tmp.name);
      if (!volume || !isObj(volume.emptyDir)) problems.push(`${service}: /tmp is not an emptyDir`);
      for (const ref of arr(c.envFrom, "envFrom").map((e) => obj(e, "envFrom"))) {
        const cm = isObj(ref.configMapRef) ? str(ref.configMapRef.name, "configMapRef.name") : undefined;
        if (!cm || !named(objects(), "ConfigMap", cm)) problems.push(`${service}: envFrom ${JSON.stringify(ref)} is not a ConfigMap of the render`);
      }
    }
    expect(problems).toEqual([]);
  });

  test("scanner-ingest's pods start with the process environment npm start gives it (malloc's, not env.ts's)", () => {
    const { spec: pod } = podTemplate(deploymentOf(objects(), "scanner-ingest"));
    const c = obj(arr(pod.containers, "containers")[0], "scanner-ingest container");
    const env: Record<string, unknown> = {};
    for (const ref of arr(c.envFrom, "envFrom").map((e) => obj(e, "envFrom"))) {
      const cm = named(objects(), "ConfigMap", str(obj(ref.configMapRef, "configMapRef").name, "name"));
      Object.assign(env, cm && isObj(cm.data) ? cm.data : {});
    }
    for (const [name, value] of Object.entries(SCANNER_PROCESS_ENV)) expect(env[name], name).toBe(value);
  });

  test("each service's configuration parses with its own env.ts", () => {
    const problems: string[] = [];
    for (const service of SERVICES) {
      const { spec: pod } = podTemplate(deploymentOf(objects(), service));
      const c = obj(arr(pod.containers, "containers")[0], `${service} container`);
      const env: Record<string, string> = {};
      for (const ref of arr(c.envFrom, "envFrom").map((e) => obj(e, "envFrom"))) {
        const cm = named(objects(), "ConfigMap", str(obj(ref.configMapRef, "configMapRef").name, "name"));
        Object.assign(env, cm && isObj(cm.data) ? cm.data : {});
      }
      for (const e of arr(c.env, "env").map((x) => obj(x, "env"))) {
        const name = str(e.name, "env name");
        if (typeof e.value === "string") env[name] = e.value;
        else if (isObj(e.valueFrom) && isObj(e.valueFrom.fieldRef)) env[name] = `${service}-7d4b9c-xk2lp`;
        else if (isObj(e.valueFrom) && isObj(e.valueFrom.secretKeyRef)) {
          if (e.valueFrom.secretKeyRef.optional === true) continue;
          const standIn = SECRET_STAND_INS[name];
          if (standIn === undefined) problems.push(`${service}: ${name} comes from a required Secret the test has no stand-in for`);
          else env[name] = standIn;
        }
      }
      if (env.HEALTH_PORT !== String(HEALTH_PORT)) problems.push(`${service}: HEALTH_PORT is ${env.HEALTH_PORT}, the probes use ${HEALTH_PORT}`);
      problems.push(...configIssues(service, env));
    }
    expect(problems).toEqual([]);
  });

  test("every service has its own ServiceAccount, PodDisruptionBudget and NetworkPolicy", () => {
    const problems: string[] = [];
    for (const service of SERVICES) {
      const { labels, spec: pod } = podTemplate(deploymentOf(objects(), service));
      if (pod.serviceAccountName !== service || !named(objects(), "ServiceAccount", service)) problems.push(`${service}: no ServiceAccount of its own`);
      const pdbs = ofKind(objects(), "PodDisruptionBudget").filter((p) => selects(obj(p.spec, "pdb spec").selector, labels));
      if (pdbs.length !== 1) problems.push(`${service}: ${pdbs.length} PodDisruptionBudgets select it`);
      const own = ofKind(objects(), "NetworkPolicy").filter((p) => {
        const sel = obj(p.spec, "policy spec").podSelector;
        return isObj(sel) && Object.keys(sel).length > 0 && selects(sel, labels);
      });
      if (own.length === 0) problems.push(`${service}: no NetworkPolicy of its own`);
    }
    expect(problems).toEqual([]);
  });

  test("only the gateway is exposed: one Service and its Ingresses, no LoadBalancer or NodePort", () => {
    const services = ofKind(objects(), "Service");
    for (const s of services) {
      const spec = obj(s.spec, "service spec");
      expect([undefined, "ClusterIP"], `${idOf(s)} type`).toContain(spec.type);
      expect(spec.externalIPs, `${idOf(s)} externalIPs`).toBeUndefined();
    }
    const appPods = SERVICES.map((s) => ({ service: s, labels: podTemplate(deploymentOf(objects(), s)).labels }));
    const fronted = services.flatMap((s) => {
      const selector = obj(s.spec, "spec").selector;
      return isObj(selector) ? appPods.filter((p) => selects({ matchLabels: selector }, p.labels)).map((p) => p.service) : [];
    });
    expect(fronted).toEqual(["gateway"]);
    const ingresses = ofKind(objects(), "Ingress");
    expect(ingresses.map(nameOf).sort()).toEqual(["gateway", "gateway-events", "gateway-mcp"]);
    const backends = JSON.stringify(ingresses).match(/"service":\{"name":"([^"]+)"/g) ?? [];
    expect(new Set(backends)).toEqual(new Set(['"service":{"name":"gateway"']));
  });

  test("the event stream's Ingress: its one path, the gateway's hosts and TLS, and nginx held open past the heartbeat, unbuffered", () => {
    const main = named(objects(), "Ingress", "gateway")!;
    const events = named(objects(), "Ingress", "gateway-events")!;
    const spec = (o: Obj) => obj(o.spec, "ingress spec");
    const paths = arr(spec(events).rules, "rules").flatMap((r) => arr(obj(obj(r, "rule").http, "http").paths, "paths").map((p) => obj(p, "path")));
    expect(paths.map((p) => `${String(p.pathType)} ${String(p.path)}`)).toEqual([`Exact ${BOARD_EVENTS_PATH}`]);
    const hosts = (o: Obj) => arr(spec(o).rules, "rules").map((r) => obj(r, "rule").host);
    expect(hosts(events)).toEqual(hosts(main));
    expect(spec(events).tls).toEqual(spec(main).tls);
    expect(spec(events).ingressClassName).toBe(spec(main).ingressClassName);
    const notes = obj(obj(events.metadata, "metadata").annotations, "annotations");
    expect(notes["nginx.ingress.kubernetes.io/proxy-buffering"]).toBe("off");
    // The gateway's heartbeat, as its configuration sets it (or its env.ts default).
    const config = Object.fromEntries(readFileSync(path.join(root, "deploy/k8s/base/gateway/config.env"), "utf8").split("\n").filter((l) => /^\w+=/.test(l)).map((l) => l.split("=", 2) as [string, string]));
    const heartbeat = GatewayEnv.parse({ ...config, NATS_NKEY_SEED: SECRET_STAND_INS["NATS_NKEY_SEED"] }).EVENTS_HEARTBEAT_SECONDS;
    for (const timeout of ["proxy-read-timeout", "proxy-send-timeout"]) expect(Number(notes[`nginx.ingress.kubernetes.io/${timeout}`]), timeout).toBeGreaterThanOrEqual(10 * heartbeat);
    // The rest of the API keeps the controller's defaults.
    expect(obj(main.metadata, "metadata").annotations).toBeUndefined();
  });

  test("MCP's Ingress: its one path, the gateway's hosts and TLS, each client address to one replica (its sessions live there), its streams held past the keep-alive, unbuffered", () => {
    const main = named(objects(), "Ingress", "gateway")!;
    const mcp = named(objects(), "Ingress", "gateway-mcp")!;
    const spec = (o: Obj) => obj(o.spec, "ingress spec");
    const paths = arr(spec(mcp).rules, "rules").flatMap((r) => arr(obj(obj(r, "rule").http, "http").paths, "paths").map((p) => obj(p, "path")));
    expect(paths.map((p) => `${String(p.pathType)} ${String(p.path)}`)).toEqual(["Exact /mcp"]);
    const hosts = (o: Obj) => arr(spec(o).rules, "rules").map((r) => obj(r, "rule").host);
    expect(hosts(mcp)).toEqual(hosts(main));
    expect(spec(mcp).tls).toEqual(spec(main).tls);
    expect(spec(mcp).ingressClassName).toBe(spec(main).ingressClassName);
    const notes = obj(obj(mcp.metadata, "metadata").annotations, "annotations");
    // The client's address, not Mcp-Session-Id: an initialize has no session id to hash.
    expect(notes["nginx.ingress.kubernetes.io/upstream-hash-by"]).toBe("$remote_addr");
    expect(notes["nginx.ingress.kubernetes.io/proxy-buffering"]).toBe("off");
    for (const timeout of ["proxy-read-timeout", "proxy-send-timeout"]) expect(Number(notes[`nginx.ingress.kubernetes.io/${timeout}`]), timeout).toBeGreaterThanOrEqual(10 * MCP_SESSION_DEFAULTS.keepaliveSeconds);
  });

  test("the gateway and board autoscale (autoscaling/v2); the HPA owns their replica count", () => {
    const hpas = ofKind(objects(), "HorizontalPodAutoscaler");
    expect(hpas.map((h) => h.apiVersion)).toEqual(hpas.map(() => "autoscaling/v2"));
    const targets = hpas.map((h) => obj(obj(h.spec, "hpa spec").scaleTargetRef, "scaleTargetRef"));
    expect(targets.map((t) => `${String(t.kind)}/${String(t.name)}`).sort()).toEqual(HPA_SERVICES.map((s) => `Deployment/${s}`).sort());
    for (const h of hpas) {
      const spec = obj(h.spec, "hpa spec");
      expect(spec.minReplicas as number).toBeGreaterThanOrEqual(1);
      expect(spec.maxReplicas as number).toBeGreaterThan(spec.minReplicas as number);
    }
    for (const s of HPA_SERVICES) expect(obj(deploymentOf(objects(), s).spec, "spec").replicas, `${s} replicas`).toBeUndefined();
  });

  test("network policies: default deny, DNS, the ingress controller to the gateway only, services to NATS and Postgres", () => {
    const policies = ofKind(objects(), "NetworkPolicy");
    const defaultDeny = policies.find((p) => {
      const spec = obj(p.spec, "spec");
      return (
        isObj(spec.podSelector) &&
        Object.keys(spec.podSelector).length === 0 &&
        ["Ingress", "Egress"].every((t) => arr(spec.policyTypes, "policyTypes").includes(t)) &&
        arr(spec.ingress, "ingress").length === 0 &&
        arr(spec.egress, "egress").length === 0
      );
    });
    expect(defaultDeny, "a default-deny policy for every pod").toBeDefined();

    const allPods = workloads(objects()).map((w) => ({ id: idOf(w), labels: podTemplate(w).labels }));
    const kubeDns = { "k8s-app": "kube-dns" };
    for (const pod of allPods) {
      const egress = rulesFor(policies, pod.labels, "Egress");
      for (const protocol of ["UDP", "TCP"]) {
        const dns = egress.some(
          (r) =>
            r.ports.some((p) => p.port === 53 && p.protocol === protocol) &&
            r.peers.some(
              (peer) => selects(peer.namespaceSelector, { "kubernetes.io/metadata.name": "kube-system" }) && selects(peer.podSelector ?? {}, kubeDns),
            ),
        );
        expect(dns, `${pod.id} resolves names over ${protocol}`).toBe(true);
      }
    }

    const problems: string[] = [];
    const nats = podTemplate(named(objects(), "StatefulSet", "nats") ?? {}).labels;
    const databasePods = allPods.filter((p) => p.labels["app.kubernetes.io/component"] === "database").map((p) => p.labels);
    const cluster = ofKind(objects(), "Cluster")[0];
    if (cluster) {
      const inherited = obj(obj(obj(cluster.spec, "spec").inheritedMetadata, "inheritedMetadata").labels, "labels") as Record<string, string>;
      databasePods.push({ ...inherited, "cnpg.io/cluster": nameOf(cluster) });
    }
    expect(databasePods.length, "the database's pods").toBeGreaterThan(0);

    for (const service of SERVICES) {
      const { labels } = podTemplate(deploymentOf(objects(), service));
      const ingress = rulesFor(policies, labels, "Ingress");
      for (const rule of ingress) {
        if (rule.peers.length === 0) problems.push(`${service}: policy ${rule.policy} admits every source`);
        for (const peer of rule.peers) {
          if (peer.ipBlock) problems.push(`${service}: policy ${rule.policy} admits an address block`);
          const fromController = selects(peer.namespaceSelector, { "kubernetes.io/metadata.name": INGRESS_CONTROLLER_NAMESPACE });
          if (fromController && service !== "gateway") problems.push(`${service}: takes traffic from the ingress controller`);
          if (peer.namespaceSelector === undefined) problems.push(`${service}: takes traffic from pods of its namespace (${rule.policy})`);
        }
        if (service !== "gateway" && rule.ports.some((p) => p.port !== HEALTH_PORT)) problems.push(`${service}: admits a port other than the health port`);
      }
      if (service === "gateway") {
        const fromController = ingress.some(
          (r) =>
            r.ports.some((p) => p.port === 8080) &&
            r.peers.some((peer) => selects(peer.namespaceSelector, { "kubernetes.io/metadata.name": INGRESS_CONTROLLER_NAMESPACE })),
        );
        if (!fromController) problems.push("gateway: the ingress controller cannot reach port 8080");
      }

      const egress = rulesFor(policies, labels, "Egress");
      if (!allowsPod(egress, nats, 4222)) problems.push(`${service}: cannot reach NATS on 4222`);
      const toDatabase = databasePods.some((db) => allowsPod(egress, db, 5432));
      if (DATABASE_SERVICES.includes(service) !== toDatabase) problems.push(`${service}: reaches Postgres: ${toDatabase}, owns data: ${DATABASE_SERVICES.includes(service)}`);
      for (const rule of egress) {
        if (rule.peers.length === 0) problems.push(`${service}: policy ${rule.policy} lets it reach anything`);
        const outside = rule.peers.filter((p) => p.ipBlock);
        if (outside.length === 0) continue;
        if (!INTERNET_SERVICES.includes(service)) problems.push(`${service}: reaches an address block`);
        if (rule.ports.length !== 1 || rule.ports[0]?.port !== 443) problems.push(`${service}: reaches the Internet on more than HTTPS`);
        for (const peer of outside) if (!arr(peer.ipBlock?.except, "except").includes("10.0.0.0/8")) problems.push(`${service}: its Internet rule includes private addresses`);
      }
    }

    // NATS takes clients only from the six services; Postgres only from the four that own data.
    const appLabels = new Map(SERVICES.map((s) => [s, podTemplate(deploymentOf(objects(), s)).labels]));
    const natsIngress = rulesFor(policies, nats, "Ingress");
    for (const [service, labels] of appLabels) if (!allowsPod(natsIngress, labels, 4222)) problems.push(`nats: does not admit ${service}`);
    for (const db of databasePods) {
      const dbIngress = rulesFor(policies, db, "Ingress");
      for (const [service, labels] of appLabels)
        if (allowsPod(dbIngress, labels, 5432) !== DATABASE_SERVICES.includes(service)) problems.push(`database: admits ${service}: ${!DATABASE_SERVICES.includes(service)}`);
      if (dbIngress.some((r) => r.peers.some((p) => selects(p.namespaceSelector, { "kubernetes.io/metadata.name": INGRESS_CONTROLLER_NAMESPACE }))))
        problems.push("database: takes traffic from the ingress controller");
    }
    expect(problems).toEqual([]);
  });

  test("NATS is a 3-server JetStream cluster with a volume per server", () => {
    const sts = named(objects(), "StatefulSet", "nats");
    expect(sts).toBeDefined();
    const spec = obj(sts?.spec, "nats spec");
    expect(spec.replicas).toBe(3);
    expect(spec.podManagementPolicy).toBe("Parallel");
    const headless = named(objects(), "Service", str(spec.serviceName, "serviceName"));
    expect(obj(headless?.spec, "headless spec")).toMatchObject({ clusterIP: "None", publishNotReadyAddresses: true });
    const claims = arr(spec.volumeClaimTemplates, "volumeClaimTemplates").map((v) => obj(v, "claim"));
    expect(claims.map((c) => nameOf(c))).toEqual(["data"]);
    const { spec: pod } = podTemplate(sts ?? {});
    const c = obj(arr(pod.containers, "containers")[0], "nats container");
    const mounts = arr(c.volumeMounts, "mounts").map((m) => obj(m, "mount"));
    const dataDir = mounts.find((m) => m.name === "data")?.mountPath;
    const configVolume = arr(pod.volumes, "volumes").map((v) => obj(v, "volume")).find((v) => v.name === "config");
    const configMap = named(objects(), "ConfigMap", str(obj(configVolume?.configMap, "configMap").name, "configMap name"));
    const conf = str(obj(configMap?.data, "nats config")["nats.conf"], "nats.conf");
    expect(conf).toMatch(new RegExp(`jetstream \\{[^}]*store_dir: ${String(dataDir)}\\n`));
    const routes = [0, 1, 2].map((i) => `nats://nats-${i}.${String(spec.serviceName)}:6222`);
    for (const r of routes) expect(conf).toContain(r);
    const common = named(objects(), "ConfigMap", "board-common") ?? ofKind(objects(), "ConfigMap").find((m) => nameOf(m).startsWith("board-common-"));
    const natsUrl = new URL(str(obj(common?.data, "board-common").NATS_URL, "NATS_URL"));
    const client = named(objects(), "Service", natsUrl.hostname);
    expect(arr(obj(client?.spec, "client service").ports, "ports").map((p) => obj(p, "port").port)).toContain(Number(natsUrl.port));
  });

  test("the bus has authorization on: NATS includes the authorization Secret; each service connects with its own seed", () => {
    const sts = named(objects(), "StatefulSet", "nats");
    const { spec: pod } = podTemplate(sts ?? {});
    const c = obj(arr(pod.containers, "containers")[0], "nats container");
    const mounts = arr(c.volumeMounts, "mounts").map((m) => obj(m, "mount"));
    const volumes = arr(pod.volumes, "volumes").map((v) => obj(v, "volume"));
    const configDir = str(mounts.find((m) => m.name === "config")?.mountPath, "config mount");
    const authMount = mounts.find((m) => m.name === "authorization");
    expect(authMount).toMatchObject({ mountPath: `${configDir}/auth`, readOnly: true });
    expect(volumes.find((v) => v.name === "authorization")).toMatchObject({ secret: { secretName: "nats-authorization" } });
    const configMap = named(objects(), "ConfigMap", str(obj(volumes.find((v) => v.name === "config")?.configMap, "configMap").name, "configMap name"));
    expect(str(obj(configMap?.data, "nats config")["nats.conf"], "nats.conf")).toMatch(/^include "\.\/auth\/authorization\.conf"$/m);
    const problems: string[] = [];
    for (const service of SERVICES) {
      const { spec } = podTemplate(deploymentOf(objects(), service));
      const env = arr(obj(arr(spec.containers, "containers")[0], "container").env, "env").map((e) => obj(e, "env"));
      const ref = env.find((e) => e.name === "NATS_NKEY_SEED")?.valueFrom;
      const key = isObj(ref) && isObj(ref.secretKeyRef) ? ref.secretKeyRef : null;
      if (!key || key.name !== "bus-seeds" || key.key !== service || key.optional === true) problems.push(`${service}: NATS_NKEY_SEED is not its own required key of bus-seeds`);
    }
    expect(problems).toEqual([]);
  });

  test("Postgres: CloudNativePG in prod, one StatefulSet in dev, and each service's DATABASE_URL from its own role's Secret", () => {
    const clusters = ofKind(objects(), "Cluster");
    const postgresSets = ofKind(objects(), "StatefulSet").filter((s) => podTemplate(s).labels["app.kubernetes.io/component"] === "database");
    if (overlay === "prod") {
      expect(postgresSets).toEqual([]);
      expect(clusters.map(nameOf)).toEqual(["board-db"]);
      const spec = obj(clusters[0]?.spec, "cluster spec");
      expect(spec.instances).toBe(3);
      const initdb = obj(obj(spec.bootstrap, "bootstrap").initdb, "initdb");
      expect(initdb.database).toBe("board");
      // The database's owner may create in it: no service's role is.
      expect(DATABASE_SERVICES).not.toContain(initdb.owner);
    } else {
      expect(clusters).toEqual([]);
      expect(postgresSets.map((s) => obj(s.spec, "spec").replicas)).toEqual([1]);
      expect(named(objects(), "Service", "board-db-rw")).toBeDefined();
    }
    for (const service of DATABASE_SERVICES) {
      const c = obj(arr(podTemplate(deploymentOf(objects(), service)).spec.containers, "containers")[0], "container");
      const ref = arr(c.env, "env")
        .map((e) => obj(e, "env"))
        .find((e) => e.name === "DATABASE_URL");
      expect(ref?.valueFrom, `${service} DATABASE_URL`).toEqual({ secretKeyRef: { name: `board-db-${service}`, key: "uri" } });
    }
  });

  test("our images come from the overlay's images list; the others are pinned by digest", () => {
    const problems: string[] = [];
    for (const w of workloads(objects()))
      for (const c of containers(podTemplate(w).spec)) {
        const image = str(c.image, `${idOf(w)} image`);
        const ours = SERVICES.find((s) => image.includes(`board/${s}:`) || image.endsWith(`board/${s}`));
        if (ours) {
          const expected = overlay === "dev" ? `board/${ours}:dev` : `registry.example.com/board/${ours}:${API_VERSION}`;
          if (image !== expected) problems.push(`${idOf(w)}: image ${image}, expected ${expected} from the overlay`);
        } else if (!/@sha256:[0-9a-f]{64}$/.test(image)) problems.push(`${idOf(w)}: ${image} is not pinned by digest`);
      }
    expect(problems).toEqual([]);
  });
});

test("the operating guide names every Secret and key the manifests reference", () => {
  const operating = readFileSync(path.join(root, "docs/operating.md"), "utf8");
  const section = operating.slice(operating.indexOf("\n## Production"));
  expect(section.length, 'docs/operating.md section "## Production"').toBeGreaterThan(100);
  const refs = new Set<string>();
  for (const overlay of OVERLAYS)
    for (const w of workloads(rendered[overlay]))
      for (const c of containers(podTemplate(w).spec))
        for (const e of arr(c.env, "env").map((x) => obj(x, "env")))
          if (isObj(e.valueFrom) && isObj(e.valueFrom.secretKeyRef)) refs.add(`${String(e.valueFrom.secretKeyRef.name)} ${String(e.valueFrom.secretKeyRef.key)}`);
  expect(refs.size).toBeGreaterThan(5);
  const missing = [...refs].filter((r) => {
    const [name, key] = r.split(" ");
    return !section.includes(`\`${name}\``) || !section.includes(`\`${key}\``);
  });
  expect(missing).toEqual([]);
});
