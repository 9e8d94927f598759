import { readFileSync } from "node:fs";
import path from "node:path";
import { API_VERSION } from "@board/proto";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { openApiDocument } from "../../services/gateway/src/discovery/openapi.js";
import { serverCard } from "../../services/gateway/src/discovery/server-card.js";
import { root, SERVICES } from "./tools.js";

// docs/versioning.md: one version, API_VERSION, for the API, the packages and the release images.

interface PackageJson {
  name: string;
  version: string;
  private?: boolean;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

const read = (file: string) => readFileSync(path.join(root, file), "utf8");
const packageJson = (dir: string) => JSON.parse(read(`${dir}/package.json`)) as PackageJson;

/** The packages published for integrators. */
const PUBLISHED = ["packages/client", "proto"];

/** Every workspace package, as the root's workspaces list them. */
function workspaces(): string[] {
  const patterns = (JSON.parse(read("package.json")) as { workspaces: string[] }).workspaces;
  const lock = JSON.parse(read("package-lock.json")) as { packages: Record<string, { link?: boolean }> };
  // The lock lists each workspace folder by its path; the patterns say which folders are workspaces.
  const dirs = Object.keys(lock.packages).filter((p) => p !== "" && !p.includes("node_modules"));
  const matches = (dir: string) => patterns.some((p) => (p.endsWith("/*") ? path.dirname(dir) === p.slice(0, -2) : dir === p));
  return dirs.filter(matches);
}

describe("one version", () => {
  it("is a semantic version", () => {
    expect(API_VERSION).toMatch(/^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$/);
  });

  it("is the OpenAPI document's info.version and the MCP server card's", () => {
    const base = new URL("https://board.example.org");
    expect(openApiDocument(base).info.version).toBe(API_VERSION);
    const card = serverCard(base) as unknown as { version: string };
    expect(card.version).toBe(API_VERSION);
  });

  it("is the version of the published packages", () => {
    for (const dir of PUBLISHED) expect(packageJson(dir).version, dir).toBe(API_VERSION);
  });

  it("is every workspace package's version, and the version each names of its siblings", () => {
    const dirs = workspaces();
    expect(dirs).toEqual(expect.arrayContaining([...PUBLISHED, ...SERVICES.map((s) => `services/${s}`)]));
    const names = new Set(dirs.map((d) => packageJson(d).name));
    const lock = JSON.parse(read("package-lock.json")) as { packages: Record<string, { version?: string }> };
    for (const dir of dirs) {
      const pkg = packageJson(dir);
      expect(pkg.version, dir).toBe(API_VERSION);
      expect(lock.packages[dir]?.version, `package-lock.json's ${dir}`).toBe(API_VERSION);
      for (const [dep, spec] of Object.entries({ ...pkg.dependencies, ...pkg.devDependencies })) {
        if (names.has(dep)) expect(spec, `${dir}: ${dep}`).toBe(API_VERSION);
      }
    }
  });

  it("is the tag of every service image the production overlay deploys", () => {
    const kustomization = parse(read("deploy/k8s/overlays/prod/kustomization.yaml")) as { images: { name: string; newName?: string; newTag?: string }[] };
    const ours = kustomization.images.filter((i) => SERVICES.some((s) => i.name === `board/${s}`));
    expect(ours.map((i) => i.name).sort()).toEqual(SERVICES.map((s) => `board/${s}`).sort());
    for (const image of ours) expect(image.newTag, image.name).toBe(API_VERSION);
  });

  it("is the changelog's newest release, below its Unreleased section", () => {
    const releases = [...read("CHANGELOG.md").matchAll(/^## \[([^\]]+)\](?: - (\d{4}-\d{2}-\d{2}))?$/gm)].map((m) => ({ version: m[1], date: m[2] }));
    expect(releases[0]).toEqual({ version: "Unreleased", date: undefined });
    expect(releases[1]?.version).toBe(API_VERSION);
    expect(releases[1]?.date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });
});
