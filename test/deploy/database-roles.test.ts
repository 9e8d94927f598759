import { statSync, readFileSync } from "node:fs";
import path from "node:path";
import { DATABASE_SERVICES as ROLE_SERVICES, rolePasswordEnv, serviceRolesInitScript, serviceRolesSql } from "@board/service-kit";
import { describe, expect, test } from "vitest";
import { named, ofKind, podTemplate, renderOverlay } from "./manifests.js";
import { arr, DATABASE_SERVICES, isObj, obj, root, str } from "./tools.js";

// One database role per service (service-kit's db-roles.ts). The init scripts and the SQL the
// deployments run are copies of what service-kit renders: regenerate them from there
// (serviceRolesInitScript(), serviceRolesSql() without passwords) when this fails.
const read = (p: string) => readFileSync(path.join(root, p), "utf8");
const INIT_SCRIPTS = ["deploy/compose/initdb/10-service-roles.sh", "deploy/k8s/overlays/dev/postgres/initdb/10-service-roles.sh"];

test("service-kit's role list is the services with migrations", () => {
  expect([...ROLE_SERVICES].sort()).toEqual([...DATABASE_SERVICES].sort());
});

describe.each(INIT_SCRIPTS)("%s", (file) => {
  test("is serviceRolesInitScript() as service-kit renders it, and executable", () => {
    expect(read(file)).toBe(serviceRolesInitScript());
    // The postgres entrypoint runs an executable script and only sources another one.
    expect(statSync(path.join(root, file)).mode & 0o111).not.toBe(0);
  });
});

test("the prod Cluster's bootstrap SQL is serviceRolesSql() without passwords (the operator sets them)", () => {
  expect(read("deploy/k8s/overlays/prod/database/service-roles.sql")).toBe(serviceRolesSql(ROLE_SERVICES.map((service) => ({ service, password: null }))));
});

describe("prod overlay: CloudNativePG", () => {
  const objects = renderOverlay("prod");
  const cluster = ofKind(objects, "Cluster")[0] ?? {};
  const spec = obj(cluster.spec, "cluster spec");

  test("a managed role per service: a login, nothing more, its password from its own basic-auth Secret", () => {
    const roles = arr(obj(spec.managed, "managed").roles, "roles").map((r) => obj(r, "role"));
    expect(roles.map((r) => r.name)).toEqual([...DATABASE_SERVICES]);
    for (const r of roles) {
      expect(r, String(r.name)).toMatchObject({ ensure: "present", login: true, superuser: false, createdb: false, createrole: false, replication: false });
      expect(r.passwordSecret).toEqual({ name: `board-db-${String(r.name)}` });
    }
  });

  test("the bootstrap runs the roles' SQL from a ConfigMap the overlay generates", () => {
    const refs = arr(obj(obj(obj(spec.bootstrap, "bootstrap").initdb, "initdb").postInitApplicationSQLRefs, "refs").configMapRefs, "configMapRefs").map((r) => obj(r, "ref"));
    expect(refs).toHaveLength(1);
    const ref = refs[0] ?? {};
    const configMap = named(objects, "ConfigMap", str(ref.name, "ref name"));
    expect(configMap, "the ConfigMap the Cluster names (no hash suffix)").toBeDefined();
    expect(obj(configMap?.data, "data")[str(ref.key, "ref key")]).toBe(read("deploy/k8s/overlays/prod/database/service-roles.sql"));
  });
});

describe("dev overlay: the postgres StatefulSet", () => {
  const objects = renderOverlay("dev");
  const set = ofKind(objects, "StatefulSet").find((s) => podTemplate(s).labels["app.kubernetes.io/component"] === "database") ?? {};
  const { spec } = podTemplate(set);
  const container = obj(arr(spec.containers, "containers")[0], "container");
  const env = arr(container.env, "env").map((e) => obj(e, "env"));

  test("mounts the init script from its ConfigMap, executable, at /docker-entrypoint-initdb.d", () => {
    const mount = arr(container.volumeMounts, "volumeMounts")
      .map((m) => obj(m, "mount"))
      .find((m) => m.mountPath === "/docker-entrypoint-initdb.d");
    expect(mount?.readOnly).toBe(true);
    const volume = arr(spec.volumes, "volumes")
      .map((v) => obj(v, "volume"))
      .find((v) => v.name === mount?.name);
    const configMap = obj(volume?.configMap, "configMap");
    expect(Number(configMap.defaultMode) & 0o111).not.toBe(0);
    const data = obj(named(objects, "ConfigMap", str(configMap.name, "configMap name"))?.data, "data");
    expect(Object.values(data)).toEqual([serviceRolesInitScript()]);
  });

  test("the superuser is not a service's role; each role's password is its own Secret's", () => {
    const value = (name: string) => env.find((e) => e.name === name);
    expect(value("POSTGRES_USER")?.value).toBe("postgres");
    expect(value("POSTGRES_PASSWORD")?.valueFrom).toEqual({ secretKeyRef: { name: "board-db-superuser", key: "password" } });
    for (const service of DATABASE_SERVICES) {
      const ref = value(rolePasswordEnv(service))?.valueFrom;
      expect(isObj(ref) ? ref.secretKeyRef : undefined, service).toEqual({ name: `board-db-${service}`, key: "password" });
    }
  });
});
