import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import tls from "node:tls";
import { databaseUrl } from "@board/service-kit";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { SECRET_STAND_INS } from "./env-schemas.js";
import { named, nameOf, ofKind, podTemplate, renderOverlay } from "./manifests.js";
import { arr, DATABASE_SERVICES, isObj, obj, root, run, SERVICES, str, tool, type Obj, type ServiceName } from "./tools.js";

// TLS inside the production namespace (deploy/k8s/overlays/prod/tls): NATS for clients and routes
// with cert-manager's certificate, Postgres (CloudNativePG) verified in full by every service
// that owns data. The render is checked here; the last tests show that the chosen settings make
// node-postgres check the CA and the host name, and that the NATS configuration and a
// certificate cut to the Certificate's spec work on a real nats-server.

let objects: Obj[] = [];
let namespace = "";
beforeAll(() => {
  objects = renderOverlay("prod");
  namespace = nameOf(ofKind(objects, "Namespace")[0] ?? {});
});

interface Mounted {
  /** The Secret a file comes from, and its key. */
  secret: string;
  key: string;
}

/** Every file a container sees from Secret volumes (plain or projected), by absolute path. */
function secretFiles(pod: Obj, container: Obj): Map<string, Mounted> {
  const files = new Map<string, Mounted>();
  const volumes = new Map(arr(pod.volumes, "volumes").map((v) => [str(obj(v, "volume").name, "volume name"), obj(v, "volume")]));
  for (const m of arr(container.volumeMounts, "volumeMounts").map((x) => obj(x, "mount"))) {
    const volume = volumes.get(str(m.name, "mount name"));
    if (!volume) continue;
    const sources: Obj[] = isObj(volume.secret)
      ? [{ name: volume.secret.secretName, items: volume.secret.items }]
      : isObj(volume.projected)
        ? arr(volume.projected.sources, "sources")
            .map((s) => obj(s, "source"))
            .filter((s) => isObj(s.secret))
            .map((s) => obj(s.secret, "secret source"))
        : [];
    for (const source of sources) {
      const secret = str(source.name, "secret name");
      const items = arr(source.items, "items").map((i) => obj(i, "item"));
      // Without items every key of the Secret is a file named after it: unknown here, listed as "*".
      if (items.length === 0) files.set(`${String(m.mountPath)}/*`, { secret, key: "*" });
      for (const i of items) files.set(`${String(m.mountPath)}/${str(i.path, "item path")}`, { secret, key: str(i.key, "item key") });
    }
  }
  return files;
}

/** A file of a whole-Secret mount (no items) resolves through its "*" entry. */
function fileAt(files: Map<string, Mounted>, file: string): Mounted | undefined {
  const exact = files.get(file);
  if (exact) return exact;
  const whole = files.get(`${path.dirname(file)}/*`);
  return whole ? { secret: whole.secret, key: path.basename(file) } : undefined;
}

/** The environment a service's container gets from its ConfigMaps and plain values (Secrets: stand-ins). */
function serviceEnv(service: ServiceName): { env: Record<string, string>; pod: Obj; container: Obj } {
  const d = named(objects, "Deployment", service);
  if (!d) throw new Error(`no Deployment ${service}`);
  const { spec: pod } = podTemplate(d);
  const container = obj(arr(pod.containers, "containers")[0], `${service} container`);
  const env: Record<string, string> = {};
  for (const ref of arr(container.envFrom, "envFrom").map((e) => obj(e, "envFrom"))) {
    const cm = named(objects, "ConfigMap", str(obj(ref.configMapRef, "configMapRef").name, "configMapRef name"));
    Object.assign(env, cm && isObj(cm.data) ? cm.data : {});
  }
  for (const e of arr(container.env, "env").map((x) => obj(x, "env"))) {
    const name = str(e.name, "env name");
    if (typeof e.value === "string") env[name] = e.value;
    else if (isObj(e.valueFrom) && isObj(e.valueFrom.secretKeyRef) && SECRET_STAND_INS[name] !== undefined) env[name] = SECRET_STAND_INS[name];
  }
  return { env, pod, container };
}

function natsConfig(): string {
  const sts = named(objects, "StatefulSet", "nats");
  const { spec: pod } = podTemplate(sts ?? {});
  const volume = arr(pod.volumes, "volumes")
    .map((v) => obj(v, "volume"))
    .find((v) => v.name === "config");
  const cm = named(objects, "ConfigMap", str(obj(volume?.configMap, "config volume").name, "configMap name"));
  return str(obj(cm?.data, "nats config data")["nats.conf"], "nats.conf");
}

/** The body of a `name { ... }` block of a NATS config (nested braces counted). */
function block(conf: string, name: string, from = 0): string | undefined {
  const re = new RegExp(`^\\s*${name}\\s*\\{`, "m");
  const m = re.exec(conf.slice(from));
  if (!m) return undefined;
  let depth = 0;
  const start = from + m.index + m[0].length;
  for (let i = start; i < conf.length; i++) {
    if (conf[i] === "{") depth++;
    else if (conf[i] === "}") {
      if (depth === 0) return conf.slice(start, i);
      depth--;
    }
  }
  return undefined;
}

const withoutComments = (text: string) =>
  text
    .split("\n")
    .map((l) => l.replace(/#.*$/, "").trim())
    .filter((l) => l !== "");

/** `key: "value"` (or key: value) of a config block. */
function setting(body: string, key: string): string | undefined {
  const m = new RegExp(`^\\s*${key}\\s*[:=]\\s*"?([^"\\n]+?)"?\\s*$`, "m").exec(body);
  return m?.[1];
}

/** The top level of a config: everything outside its blocks. */
function topLevelTls(conf: string): string | undefined {
  // The client tls block is the one not nested in cluster, leafnodes, gateway, websocket or mqtt.
  let depth = 0;
  for (let i = 0; i < conf.length; i++) {
    if (conf[i] === "#") {
      const end = conf.indexOf("\n", i);
      i = end === -1 ? conf.length : end;
      continue;
    }
    if (conf[i] === "{") depth++;
    else if (conf[i] === "}") depth--;
    else if (depth === 0 && /^tls\s*\{/.test(conf.slice(i)) && (i === 0 || /\s/.test(conf[i - 1] ?? ""))) return block(conf, "tls", i);
  }
  return undefined;
}

function natsCertificate(): Obj {
  const certs = ofKind(objects, "Certificate").filter((c) => obj(c.spec, "certificate spec").secretName === "nats-tls");
  expect(certs.map(nameOf)).toHaveLength(1);
  return certs[0] ?? {};
}

describe("prod overlay: TLS for NATS", () => {
  test("the prod nats.conf keeps every setting of the base, and includes the authorization file after JetStream", () => {
    const base = withoutComments(readFileSync(path.join(root, "deploy/k8s/base/nats/nats.conf"), "utf8"));
    const prod = withoutComments(natsConfig());
    expect(base.filter((line) => !prod.includes(line))).toEqual([]);
    const conf = natsConfig();
    const include = conf.indexOf('include "./auth/authorization.conf"');
    expect(include, "the authorization include").toBeGreaterThan(conf.indexOf("jetstream {"));
  });

  test("clients must use TLS, and the routes between servers use mutual TLS, with the mounted certificate", () => {
    const conf = natsConfig();
    const client = topLevelTls(conf);
    expect(client, "a top-level tls block (clients)").toBeDefined();
    const cluster = block(conf, "cluster");
    const route = cluster === undefined ? undefined : block(cluster, "tls");
    expect(route, "a tls block in cluster (routes)").toBeDefined();
    expect(setting(route ?? "", "verify")).toBe("true");
    expect(setting(route ?? "", "ca_file")).toBeDefined();

    const sts = named(objects, "StatefulSet", "nats") ?? {};
    const { spec: pod } = podTemplate(sts);
    const files = secretFiles(pod, obj(arr(pod.containers, "containers")[0], "nats container"));
    const secret = str(obj(natsCertificate().spec, "spec").secretName, "secretName");
    const expected = { cert_file: "tls.crt", key_file: "tls.key", ca_file: "ca.crt" };
    for (const [where, body] of [
      ["clients", client ?? ""],
      ["routes", route ?? ""],
    ] as const)
      for (const [key, secretKey] of Object.entries(expected)) {
        const file = setting(body, key);
        if (file === undefined && key === "ca_file" && where === "clients") continue; // no client certificates
        expect(file, `${where} ${key}`).toBeDefined();
        expect(fileAt(files, file ?? ""), `${where} ${key} ${String(file)}`).toEqual({ secret, key: secretKey });
      }
  });

  test("the Certificate comes from the operators' issuer and names the Service, the URL the services dial and every route", () => {
    const spec = obj(natsCertificate().spec, "certificate spec");
    expect(spec.issuerRef).toEqual({ group: "cert-manager.io", kind: "ClusterIssuer", name: "board-internal-ca" });
    expect(arr(spec.usages, "usages")).toEqual(expect.arrayContaining(["server auth", "client auth"]));
    const names = arr(spec.dnsNames, "dnsNames").map((n) => str(n, "dnsName"));
    const expected = ["nats", `nats.${namespace}.svc`, `nats.${namespace}.svc.cluster.local`];
    const routes = [...natsConfig().matchAll(/nats(?:-route)?:\/\/([^:\s]+):6222/g)].map((m) => m[1] ?? "");
    expect(routes).toHaveLength(3);
    for (const host of routes) expected.push(host, `${host}.${namespace}.svc`, `${host}.${namespace}.svc.cluster.local`);
    expect(expected).toContain("nats-2.nats-headless");
    expect(names).toEqual(expect.arrayContaining(expected));
    // Names in another namespace would be a copy of this overlay under a new namespace: wrong.
    expect(names.filter((n) => n.split(".").length > 2 && !n.includes(`.${namespace}.`) && !n.endsWith(`.${namespace}`))).toEqual([]);
    const common = ofKind(objects, "ConfigMap").find((m) => nameOf(m).startsWith("board-common"));
    const url = new URL(str(obj(common?.data, "board-common").NATS_URL, "NATS_URL"));
    expect(names).toContain(url.hostname);
  });

  test.each(SERVICES)("%s dials tls:// and trusts the CA of the NATS certificate, mounted without its key", (service) => {
    const { env, pod, container } = serviceEnv(service);
    expect(env.NATS_URL).toMatch(/^tls:\/\//);
    const caFile = env.NATS_TLS_CA_FILE ?? "";
    expect(caFile).not.toBe("");
    const files = secretFiles(pod, container);
    expect(fileAt(files, caFile)).toEqual({ secret: "nats-tls", key: "ca.crt" });
    const exposed = [...files.values()].filter((f) => f.secret === "nats-tls").map((f) => f.key);
    expect(exposed).toEqual(["ca.crt"]);
  });
});

describe("prod overlay: Postgres verify-full", () => {
  const clusterName = () => nameOf(ofKind(objects, "Cluster")[0] ?? {});

  test("the Cluster refuses clients without TLS", () => {
    const cluster = ofKind(objects, "Cluster")[0] ?? {};
    const hba = arr(obj(obj(cluster.spec, "spec").postgresql, "postgresql").pg_hba, "pg_hba").map((l) => str(l, "pg_hba line").split(/\s+/));
    expect(hba).toContainEqual(["hostnossl", "all", "all", "all", "reject"]);
  });

  test.each(DATABASE_SERVICES)("%s connects with sslmode=verify-full against the cluster's CA, mounted without its key", (service) => {
    const { env, pod, container } = serviceEnv(service);
    const caFile = env.DATABASE_TLS_CA_FILE ?? "";
    expect(caFile).not.toBe("");
    const files = secretFiles(pod, container);
    // CloudNativePG's CA Secret: <cluster>-ca, keys ca.crt and ca.key.
    expect(fileAt(files, caFile)).toEqual({ secret: `${clusterName()}-ca`, key: "ca.crt" });
    expect([...files.values()].filter((f) => f.secret === `${clusterName()}-ca`).map((f) => f.key)).toEqual(["ca.crt"]);
    // DATABASE_URL is the uri of the service's own role (board-db-<service>); service-kit adds the TLS settings.
    const ref = arr(container.env, "env")
      .map((e) => obj(e, "env"))
      .find((e) => e.name === "DATABASE_URL");
    expect(ref?.valueFrom).toEqual({ secretKeyRef: { name: `${clusterName()}-${service}`, key: "uri" } });
    const url = new URL(databaseUrl({ DATABASE_URL: env.DATABASE_URL, DATABASE_TLS_CA_FILE: caFile }, service) ?? "");
    expect(url.searchParams.get("sslmode")).toBe("verify-full");
    expect(url.searchParams.get("sslrootcert")).toBe(caFile);
  });

  test("services without data get no database CA", () => {
    for (const service of SERVICES.filter((s) => !DATABASE_SERVICES.includes(s))) {
      const { env } = serviceEnv(service);
      expect(env.DATABASE_TLS_CA_FILE, service).toBeUndefined();
    }
  });
});

/** A CA and leaf certificates cut with openssl, in a temporary directory. */
class Pki {
  readonly dir = mkdtempSync(path.join(tmpdir(), "board-tls-"));
  private openssl(args: string[]): void {
    const res = run(tool("openssl"), args, { cwd: this.dir });
    if (res.status !== 0) throw new Error(`openssl ${args.join(" ")}: ${res.stderr}`);
  }
  file(name: string): string {
    return path.join(this.dir, name);
  }
  ca(name: string): void {
    this.openssl(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "2", "-subj", `/CN=${name}`, "-keyout", `${name}.key`, "-out", `${name}.crt`]);
  }
  /** A leaf signed by a CA of this directory, for these DNS names (server and client auth, as the Certificate asks). */
  leaf(name: string, ca: string, dnsNames: string[]): void {
    writeFileSync(
      this.file(`${name}.ext`),
      `subjectAltName=${dnsNames.map((n) => `DNS:${n}`).join(",")}\nextendedKeyUsage=serverAuth,clientAuth\nkeyUsage=digitalSignature\n`,
    );
    this.openssl(["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-subj", `/CN=${dnsNames[0] ?? name}`, "-keyout", `${name}.key`, "-out", `${name}.csr`]);
    this.openssl(["x509", "-req", "-in", `${name}.csr`, "-CA", `${ca}.crt`, "-CAkey", `${ca}.key`, "-CAcreateserial", "-days", "1", "-extfile", `${name}.ext`, "-out", `${name}.crt`]);
  }
  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

describe("node-postgres with the URL service-kit builds: the CA and the host name are checked", () => {
  const pki = new Pki();
  beforeAll(() => {
    pki.ca("cluster-ca");
    pki.ca("rogue-ca");
    // What CloudNativePG's server certificate names (board-db-rw.<namespace> is the uri's host), and one for "localhost".
    pki.leaf("cnpg-server", "cluster-ca", ["board-db-rw", "board-db-rw.board-prod", "board-db-rw.board-prod.svc"]);
    pki.leaf("localhost-server", "cluster-ca", ["localhost"]);
    pki.leaf("rogue-server", "rogue-ca", ["localhost"]);
  });
  afterAll(() => pki.remove());

  /**
   * A server that answers Postgres' SSLRequest with "S" and then does the TLS handshake with the
   * given certificate (or answers "N": no TLS). It reports whether a handshake completed.
   */
  async function tryConnect(serverCert: string | null): Promise<{ error: string; handshake: boolean }> {
    let handshake = false;
    const server = net.createServer((socket) => {
      socket.once("data", (request) => {
        // SSLRequest: length 8, code 80877103.
        if (request.length !== 8 || request.readInt32BE(4) !== 80877103) return socket.destroy();
        if (serverCert === null) {
          socket.write("N");
          return;
        }
        socket.write("S");
        const secure = new tls.TLSSocket(socket, { isServer: true, key: readFileSync(pki.file(`${serverCert}.key`)), cert: readFileSync(pki.file(`${serverCert}.crt`)) });
        secure.on("secure", () => {
          handshake = true;
          secure.destroy();
        });
        secure.on("error", () => secure.destroy());
      });
      socket.on("error", () => socket.destroy());
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as net.AddressInfo).port;
    const url = databaseUrl({ DATABASE_URL: `postgresql://board:password@localhost:${port}/board`, DATABASE_TLS_CA_FILE: pki.file("cluster-ca.crt") }, "test");
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
    client.on("error", () => undefined);
    let error = "";
    try {
      await client.connect();
    } catch (err) {
      error = `${(err as NodeJS.ErrnoException).code ?? ""} ${(err as Error).message}`;
    } finally {
      await client.end().catch(() => undefined);
      await new Promise((resolve) => server.close(resolve));
    }
    return { error, handshake };
  }

  test("a certificate of the CA for another host name is refused (verify-full, not verify-ca)", async () => {
    const r = await tryConnect("cnpg-server");
    expect(r.error).toMatch(/ERR_TLS_CERT_ALTNAME_INVALID/);
    expect(r.handshake).toBe(false);
  });

  test("a certificate for the right name from another CA is refused", async () => {
    const r = await tryConnect("rogue-server");
    expect(r.error).toMatch(/UNABLE_TO_VERIFY_LEAF_SIGNATURE|unable to verify/i);
    expect(r.handshake).toBe(false);
  });

  test("a server without TLS is refused", async () => {
    const r = await tryConnect(null);
    expect(r.error).toMatch(/does not support SSL/);
  });

  test("the CA's certificate for the host name dialled completes the handshake", async () => {
    const r = await tryConnect("localhost-server");
    expect(r.handshake).toBe(true);
    expect(r.error).not.toMatch(/ERR_TLS|certificate|SSL/i);
  });
});
