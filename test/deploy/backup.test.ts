import { readFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, test } from "vitest";
import { checkScheduledBackup, cronProblems, idOf, nameOf, named, ofKind, renderOverlay, rulesFor } from "./manifests.js";
import { arr, isObj, obj, parseYamlStream, root, run, str, tool, type Obj } from "./tools.js";

// The database's backups in production (deploy/k8s/overlays/prod/database): the Cluster's
// spec.backup (barman-cloud to the operators' object store, a retention policy), a daily
// ScheduledBackup of that Cluster, and overlays/prod-restore, the same Cluster recovered from
// that store. How to restore and check: docs/operations-restore.md.

const RESTORE_OVERLAY = "deploy/k8s/overlays/prod-restore";
const RESTORE_DOC = "docs/operations-restore.md";
/** What `kubectl apply -k overlays/prod-restore -l <this>` applies: the Cluster alone. */
const CLUSTER_SELECTOR = ["app.kubernetes.io/name", "postgres"] as const;

let prod: Obj[] = [];
let restore: Obj[] = [];
beforeAll(() => {
  prod = renderOverlay("prod");
  const res = run(tool("kubectl"), ["kustomize", RESTORE_OVERLAY]);
  if (res.status !== 0) throw new Error(`kubectl kustomize ${RESTORE_OVERLAY} failed:\n${res.stderr}`);
  restore = parseYamlStream(res.stdout).filter(isObj);
});

const read = (file: string) => readFileSync(path.join(root, file), "utf8");
const spec = (o: Obj | undefined) => obj(o?.spec, `${o ? idOf(o) : "object"} spec`);
const theCluster = (objects: Obj[]) => {
  const clusters = ofKind(objects, "Cluster");
  expect(clusters.map(nameOf)).toEqual(["board-db"]);
  return clusters[0]!;
};
const objectStoreOf = (cluster: Obj) => obj(obj(spec(cluster).backup, "spec.backup").barmanObjectStore, "spec.backup.barmanObjectStore");

/** The Secrets (name and key) an object store configuration reads its credentials from. */
function credentialRefs(store: Obj): { name: string; key: string }[] {
  const refs: { name: string; key: string }[] = [];
  for (const kind of ["s3Credentials", "azureCredentials", "googleCredentials"]) {
    const creds = store[kind];
    if (!isObj(creds)) continue;
    for (const value of Object.values(creds))
      if (isObj(value) && typeof value.name === "string" && typeof value.key === "string") refs.push({ name: value.name, key: value.key });
  }
  return refs;
}

/** A retention policy (XXu, u in d, w, m) in days; months count as 30. */
function retentionDays(policy: string): number {
  const m = /^([1-9][0-9]*)([dwm])$/.exec(policy);
  if (!m) throw new Error(`retentionPolicy ${JSON.stringify(policy)} is not XXd, XXw or XXm`);
  return Number(m[1]) * { d: 1, w: 7, m: 30 }[m[2] as "d" | "w" | "m"];
}

describe("prod overlay: the database's backups", () => {
  test("the Cluster archives its WAL and base backups to an object store, with a retention policy", () => {
    const cluster = theCluster(prod);
    const backup = obj(spec(cluster).backup, "spec.backup");
    // A week of daily base backups at the least, so a recovery can reach back past a weekend's damage.
    expect(retentionDays(str(backup.retentionPolicy, "retentionPolicy"))).toBeGreaterThanOrEqual(7);
    const store = objectStoreOf(cluster);
    const destination = new URL(str(store.destinationPath, "destinationPath"));
    expect(["s3:", "gs:", "https:"]).toContain(destination.protocol);
    expect(destination.pathname.length, "a folder inside the bucket").toBeGreaterThan(1);
    // Its own folder, named, so a recovered Cluster (same name) can be told to archive elsewhere.
    expect(str(store.serverName, "serverName")).toBe(nameOf(cluster));
    const kinds = ["s3Credentials", "azureCredentials", "googleCredentials"].filter((k) => isObj(store[k]));
    expect(kinds, "exactly one provider's credentials").toHaveLength(1);
    expect(credentialRefs(store).length).toBeGreaterThan(0);
    for (const part of ["wal", "data"]) expect(obj(store[part], part).compression, `${part} compression`).toBeDefined();
  });

  test("the object store's credentials are only referenced: a Secret of the operators', named in the operating guide and the restore guide", () => {
    const refs = credentialRefs(objectStoreOf(theCluster(prod)));
    expect(refs.map((r) => named(prod, "Secret", r.name)).filter(Boolean)).toEqual([]);
    const operating = read("docs/operating.md");
    const secrets = operating.slice(operating.indexOf("\n## Production"));
    const doc = read(RESTORE_DOC);
    for (const { name, key } of refs) {
      const row = secrets.split("\n").find((l) => l.startsWith(`| \`${name}\``));
      expect(row, `docs/operating.md's Secrets table has a row for ${name}`).toBeDefined();
      expect(row).toContain(`\`${key}\``);
      expect(doc).toContain(name);
      expect(doc).toContain(key);
    }
    expect(doc).toContain(new URL(str(objectStoreOf(theCluster(prod)).destinationPath, "destinationPath")).host);
  });

  test("a ScheduledBackup of that Cluster, daily or more often, to its object store, taken at once when applied", () => {
    const cluster = theCluster(prod);
    const scheduled = ofKind(prod, "ScheduledBackup");
    expect(scheduled.map(nameOf)).toEqual(["board-db-daily"]);
    const backup = scheduled[0]!;
    expect(checkScheduledBackup(backup)).toEqual([]);
    expect(obj(backup.metadata, "metadata").namespace).toBe(obj(cluster.metadata, "metadata").namespace);
    const s = spec(backup);
    expect(s.cluster).toEqual({ name: nameOf(cluster) });
    expect(s.method ?? "barmanObjectStore").toBe("barmanObjectStore");
    expect(s.immediate).toBe(true);
    expect(s.suspend ?? false).toBe(false);
    // Seconds, minutes, hours fixed; every day of every month, any day of the week.
    const [sec, min, hour, ...days] = str(s.schedule, "schedule").split(/\s+/);
    for (const f of [sec, min, hour]) expect(f).toMatch(/^\d+$/);
    expect(days.map((d) => (d === "?" ? "*" : d))).toEqual(["*", "*", "*"]);
    // Within the retention window there are always several base backups to recover from.
    expect(retentionDays(str(obj(spec(cluster).backup, "backup").retentionPolicy, "retentionPolicy"))).toBeGreaterThanOrEqual(7);
  });

  test("cron checks catch what they are for", () => {
    expect(cronProblems("0 0 3 * * *")).toEqual([]);
    expect(cronProblems("0 */15 * * * 1-5")).toEqual([]);
    expect(cronProblems("0 3 * * *")).toHaveLength(1); // a CronJob's five fields
    expect(cronProblems("0 0 24 * * *")).toHaveLength(1);
    expect(cronProblems("0 0 3 * * 7-1")).toHaveLength(1);
  });

  test("the database's pods may reach the object store (its port, on an address outside the namespace)", () => {
    const cluster = theCluster(prod);
    const store = objectStoreOf(cluster);
    const endpoint = typeof store.endpointURL === "string" ? new URL(store.endpointURL) : null;
    const port = endpoint ? Number(endpoint.port || (endpoint.protocol === "http:" ? 80 : 443)) : 443;
    const inherited = obj(obj(spec(cluster).inheritedMetadata, "inheritedMetadata").labels, "labels") as Record<string, string>;
    const labels = { ...inherited, "cnpg.io/cluster": nameOf(cluster) };
    const egress = rulesFor(ofKind(prod, "NetworkPolicy"), labels, "Egress");
    const reaches = egress.some((r) => r.ports.some((p) => p.port === port && p.protocol === "TCP") && r.peers.some((p) => isObj(p.ipBlock)));
    expect(reaches, `egress to an address block on ${port}`).toBe(true);
  });
});

describe("overlays/prod-restore: the Cluster recovered from the object store", () => {
  test("renders the production overlay with only the Cluster changed, and only the Cluster selected for applying", () => {
    const others = (objects: Obj[]) => objects.filter((o) => o.kind !== "Cluster");
    expect(others(restore)).toEqual(others(prod));
    const selected = restore.filter((o) => {
      const labels = obj(o.metadata, "metadata").labels;
      return isObj(labels) && labels[CLUSTER_SELECTOR[0]] === CLUSTER_SELECTOR[1];
    });
    expect(selected.map(idOf)).toEqual(["Cluster/board-db"]);
    expect(read(RESTORE_DOC)).toContain(`kubectl apply -k ${RESTORE_OVERLAY} -l ${CLUSTER_SELECTOR.join("=")}`);
  });

  test("bootstraps by recovery (never initdb) from the archive the production Cluster writes", () => {
    const made = theCluster(prod);
    const recovered = theCluster(restore);
    const bootstrap = obj(spec(recovered).bootstrap, "bootstrap");
    expect(Object.keys(bootstrap)).toEqual(["recovery"]);
    const recovery = obj(bootstrap.recovery, "recovery");
    const initdb = obj(obj(spec(made).bootstrap, "bootstrap").initdb, "initdb");
    expect({ database: recovery.database, owner: recovery.owner }).toEqual({ database: initdb.database, owner: initdb.owner });
    const sources = arr(spec(recovered).externalClusters, "externalClusters").map((c) => obj(c, "external cluster"));
    const source = sources.find((c) => c.name === recovery.source);
    expect(source, `externalClusters has ${String(recovery.source)}`).toBeDefined();
    const archive = obj(source?.barmanObjectStore, "source barmanObjectStore");
    const written = objectStoreOf(made);
    // The same store, folder and credentials as the production Cluster's backups.
    for (const key of ["destinationPath", "serverName", "endpointURL", "endpointCA", "s3Credentials", "azureCredentials", "googleCredentials"])
      expect(archive[key], key).toEqual(written[key]);
  });

  test("archives its own timeline into a folder of its own; everything else is the production Cluster", () => {
    const made = theCluster(prod);
    const recovered = theCluster(restore);
    const own = objectStoreOf(recovered);
    expect(str(own.serverName, "serverName")).not.toBe(str(objectStoreOf(made).serverName, "serverName"));
    const rest = (cluster: Obj) => {
      const { bootstrap: _b, externalClusters: _e, backup, ...others } = spec(cluster);
      const { barmanObjectStore, ...backupRest } = obj(backup, "backup");
      const { serverName: _s, ...store } = obj(barmanObjectStore, "barmanObjectStore");
      return { ...others, backup: { ...backupRest, barmanObjectStore: store }, metadata: cluster.metadata };
    };
    expect(rest(recovered)).toEqual(rest(made));
  });
});
