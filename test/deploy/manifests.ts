import { HorizontalPodAutoscaler } from "kubernetes-models/autoscaling/v2";
import { Deployment, StatefulSet } from "kubernetes-models/apps/v1";
import { Ingress, NetworkPolicy } from "kubernetes-models/networking.k8s.io/v1";
import { PodDisruptionBudget } from "kubernetes-models/policy/v1";
import { ConfigMap, Namespace, Service, ServiceAccount } from "kubernetes-models/v1";
import { arr, isObj, obj, parseYamlStream, run, str, tool, type Obj } from "./tools.js";

export const OVERLAYS = ["dev", "prod"] as const;
export type Overlay = (typeof OVERLAYS)[number];

/** `kubectl kustomize deploy/k8s/overlays/<name>`: offline, as CI and an operator render it. */
export function renderOverlay(overlay: Overlay): Obj[] {
  const res = run(tool("kubectl"), ["kustomize", `deploy/k8s/overlays/${overlay}`]);
  if (res.status !== 0) throw new Error(`kubectl kustomize ${overlay} failed:\n${res.stderr}`);
  return parseYamlStream(res.stdout).filter(isObj);
}

interface Validatable {
  validate(): void;
}
const model =
  <T>(Model: new (data: T) => Validatable) =>
  (o: Obj): Validatable =>
    new Model(o as T);

/** The kubernetes-models class for each built-in kind the manifests use. */
export const MODELS: Record<string, (o: Obj) => Validatable> = {
  "apps/v1/Deployment": model(Deployment),
  "apps/v1/StatefulSet": model(StatefulSet),
  "v1/Service": model(Service),
  "v1/ServiceAccount": model(ServiceAccount),
  "v1/ConfigMap": model(ConfigMap),
  "v1/Namespace": model(Namespace),
  "policy/v1/PodDisruptionBudget": model(PodDisruptionBudget),
  "autoscaling/v2/HorizontalPodAutoscaler": model(HorizontalPodAutoscaler),
  "networking.k8s.io/v1/NetworkPolicy": model(NetworkPolicy),
  "networking.k8s.io/v1/Ingress": model(Ingress),
};

export const kindOf = (o: Obj) => `${str(o.apiVersion, "apiVersion")}/${str(o.kind, "kind")}`;
export const nameOf = (o: Obj) => str(obj(o.metadata, "metadata").name, "metadata.name");
export const idOf = (o: Obj) => `${String(o.kind)}/${String(obj(o.metadata, "metadata").name)}`;

export function ofKind(objects: Obj[], kind: string): Obj[] {
  return objects.filter((o) => o.kind === kind);
}
export function named(objects: Obj[], kind: string, name: string): Obj | undefined {
  return objects.find((o) => o.kind === kind && nameOf(o) === name);
}

/** Deployments and StatefulSets: everything that runs pods. */
export function workloads(objects: Obj[]): Obj[] {
  return objects.filter((o) => o.kind === "Deployment" || o.kind === "StatefulSet");
}
export function podTemplate(workload: Obj): { labels: Record<string, string>; spec: Obj } {
  const template = obj(obj(workload.spec, `${idOf(workload)} spec`).template, `${idOf(workload)} template`);
  const labels = obj(obj(template.metadata, "template metadata").labels, "template labels") as Record<string, string>;
  return { labels, spec: obj(template.spec, `${idOf(workload)} pod spec`) };
}
export function containers(pod: Obj): Obj[] {
  return [...arr(pod.initContainers, "initContainers"), ...arr(pod.containers, "containers")].map((c) => obj(c, "container"));
}

/** Kubernetes label selector semantics (matchLabels and matchExpressions). */
export function selects(selector: unknown, labels: Record<string, string>): boolean {
  if (!isObj(selector)) return false;
  const matchLabels = isObj(selector.matchLabels) ? (selector.matchLabels as Record<string, string>) : {};
  for (const [k, v] of Object.entries(matchLabels)) if (labels[k] !== v) return false;
  for (const e of arr(selector.matchExpressions, "matchExpressions")) {
    const { key, operator, values } = obj(e, "matchExpression") as { key: string; operator: string; values?: string[] };
    const has = key in labels;
    const value = labels[key];
    if (operator === "In" && !(has && value !== undefined && (values ?? []).includes(value))) return false;
    if (operator === "NotIn" && has && value !== undefined && (values ?? []).includes(value)) return false;
    if (operator === "Exists" && !has) return false;
    if (operator === "DoesNotExist" && has) return false;
  }
  return true;
}

export interface PolicyPeer {
  policy: string;
  podSelector?: unknown;
  namespaceSelector?: unknown;
  ipBlock?: Obj;
}
export interface PolicyRule {
  policy: string;
  /** Empty: every source or destination (a rule without from/to). */
  peers: PolicyPeer[];
  /** Empty: every port. */
  ports: { protocol: string; port: number | string }[];
}

/** The ingress or egress rules that apply to pods with these labels (in their own namespace). */
export function rulesFor(policies: Obj[], labels: Record<string, string>, direction: "Ingress" | "Egress"): PolicyRule[] {
  const rules: PolicyRule[] = [];
  for (const p of policies) {
    const spec = obj(p.spec, `${idOf(p)} spec`);
    if (!selects(spec.podSelector, labels)) continue;
    if (!arr(spec.policyTypes, "policyTypes").includes(direction)) continue;
    const key = direction === "Ingress" ? "ingress" : "egress";
    const peerKey = direction === "Ingress" ? "from" : "to";
    for (const r of arr(spec[key], key)) {
      const rule = obj(r, `${idOf(p)} rule`);
      rules.push({
        policy: nameOf(p),
        peers: arr(rule[peerKey], peerKey).map((x) => ({ policy: nameOf(p), ...obj(x, "peer") })),
        ports: arr(rule.ports, "ports").map((x) => {
          const port = obj(x, "port") as { protocol?: string; port: number | string };
          return { protocol: port.protocol ?? "TCP", port: port.port };
        }),
      });
    }
  }
  return rules;
}

/** Whether a rule lets traffic through to/from a pod of this namespace with these labels on this port. */
export function allowsPod(rules: PolicyRule[], labels: Record<string, string>, port: number, protocol = "TCP"): boolean {
  return rules.some(
    (r) =>
      (r.ports.length === 0 || r.ports.some((p) => p.port === port && p.protocol === protocol)) &&
      (r.peers.length === 0 || r.peers.some((peer) => peer.namespaceSelector === undefined && peer.ipBlock === undefined && selects(peer.podSelector ?? {}, labels))),
  );
}

/** cert-manager's Certificate (a CRD, no kubernetes-models class): its required fields, checked by hand. */
export function checkCertificate(o: Obj): string[] {
  const at = idOf(o);
  const spec = isObj(o.spec) ? o.spec : {};
  const problems: string[] = [];
  if (typeof spec.secretName !== "string" || spec.secretName === "") problems.push(`${at}: spec.secretName is required`);
  const issuer = isObj(spec.issuerRef) ? spec.issuerRef : {};
  if (typeof issuer.name !== "string" || !["Issuer", "ClusterIssuer"].includes(String(issuer.kind ?? "Issuer")))
    problems.push(`${at}: spec.issuerRef needs a name and kind Issuer or ClusterIssuer`);
  const names = [...arr(spec.dnsNames, "dnsNames"), ...arr(spec.ipAddresses, "ipAddresses")];
  if (names.length === 0 && typeof spec.commonName !== "string") problems.push(`${at}: names no host (dnsNames, ipAddresses or commonName)`);
  for (const n of arr(spec.dnsNames, "dnsNames"))
    if (typeof n !== "string" || !/^(\*\.)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/.test(n)) problems.push(`${at}: dnsName ${JSON.stringify(n)}`);
  for (const d of ["duration", "renewBefore"])
    if (spec[d] !== undefined && !/^(\d+(\.\d+)?(h|m|s))+$/.test(String(spec[d]))) problems.push(`${at}: spec.${d} is not a Go duration`);
  return problems;
}

/** robfig/cron's six fields (CloudNativePG's ScheduledBackup): seconds, minutes, hours, day of month, month, day of week. */
const CRON_FIELDS: readonly { name: string; max: number; min: number }[] = [
  { name: "seconds", min: 0, max: 59 },
  { name: "minutes", min: 0, max: 59 },
  { name: "hours", min: 0, max: 23 },
  { name: "day of month", min: 1, max: 31 },
  { name: "month", min: 1, max: 12 },
  { name: "day of week", min: 0, max: 6 },
];

/** The problems of a six-field cron schedule (numbers, ranges, lists, steps and *; no names or descriptors). */
export function cronProblems(schedule: string): string[] {
  const fields = schedule.trim().split(/\s+/);
  if (fields.length !== CRON_FIELDS.length) return [`schedule ${JSON.stringify(schedule)} has ${fields.length} fields, not six (seconds first)`];
  const problems: string[] = [];
  fields.forEach((field, i) => {
    const { name, min, max } = CRON_FIELDS[i]!;
    const inRange = (v: string | undefined) => v === undefined || (Number(v) >= min && Number(v) <= max);
    for (const part of field.split(",")) {
      const m = /^(?:\*|\?|(\d+)(?:-(\d+))?)(?:\/(\d+))?$/.exec(part);
      const [, from, to, step] = m ?? [];
      const ok = m !== null && inRange(from) && inRange(to) && (to === undefined || Number(from) <= Number(to)) && (step === undefined || Number(step) >= 1);
      if (!ok) problems.push(`schedule ${JSON.stringify(schedule)}: ${name} ${JSON.stringify(part)}`);
    }
  });
  return problems;
}

/** CloudNativePG's ScheduledBackup (a CRD, no kubernetes-models class): its required fields, checked by hand. */
export function checkScheduledBackup(o: Obj): string[] {
  const at = idOf(o);
  const spec = isObj(o.spec) ? o.spec : {};
  const problems: string[] = [];
  if (!isObj(spec.cluster) || typeof spec.cluster.name !== "string" || spec.cluster.name === "") problems.push(`${at}: spec.cluster.name is required`);
  if (typeof spec.schedule !== "string") problems.push(`${at}: spec.schedule is required`);
  else problems.push(...cronProblems(spec.schedule).map((p) => `${at}: ${p}`));
  if (spec.method !== undefined && !["barmanObjectStore", "volumeSnapshot", "plugin"].includes(String(spec.method))) problems.push(`${at}: spec.method ${String(spec.method)}`);
  if (spec.backupOwnerReference !== undefined && !["none", "self", "cluster"].includes(String(spec.backupOwnerReference)))
    problems.push(`${at}: spec.backupOwnerReference ${String(spec.backupOwnerReference)}`);
  if (spec.target !== undefined && !["primary", "prefer-standby"].includes(String(spec.target))) problems.push(`${at}: spec.target ${String(spec.target)}`);
  return problems;
}
