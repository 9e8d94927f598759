import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { SECRET_VARIABLE } from "./env-schemas.js";
import { root } from "./tools.js";

interface Instruction {
  cmd: string;
  args: string;
  line: number;
}
interface Stage {
  name: string;
  instructions: Instruction[];
}

/** Instructions of a Dockerfile: comments dropped, continuation lines joined. */
function parseDockerfile(text: string): { preamble: Instruction[]; stages: Stage[] } {
  const instructions: Instruction[] = [];
  let pending: Instruction | null = null;
  text.split("\n").forEach((raw, i) => {
    const line = raw.trimEnd();
    if (pending === null && (line.trim() === "" || line.trimStart().startsWith("#"))) return;
    if (pending !== null && line.trimStart().startsWith("#")) return;
    const body = (line.endsWith("\\") ? line.slice(0, -1) : line).trimEnd();
    if (pending === null) {
      const m = /^\s*([A-Za-z]+)\s*(.*)$/.exec(body);
      pending = { cmd: (m?.[1] ?? "").toUpperCase(), args: m?.[2] ?? "", line: i + 1 };
    } else pending.args += ` ${body.trim()}`;
    if (!line.endsWith("\\")) {
      instructions.push(pending);
      pending = null;
    }
  });
  const preamble: Instruction[] = [];
  const stages: Stage[] = [];
  for (const ins of instructions) {
    if (ins.cmd === "FROM") stages.push({ name: /\sAS\s+(\S+)/i.exec(ins.args)?.[1] ?? String(stages.length), instructions: [ins] });
    else if (stages.length === 0) preamble.push(ins);
    else stages[stages.length - 1]?.instructions.push(ins);
  }
  return { preamble, stages };
}

const dockerfile = parseDockerfile(readFileSync(path.join(root, "Dockerfile"), "utf8"));
const stage = (name: string) => {
  const s = dockerfile.stages.find((x) => x.name === name);
  if (!s) throw new Error(`the Dockerfile has no stage "${name}"`);
  return s;
};
const runs = (s: Stage) => s.instructions.filter((i) => i.cmd === "RUN").map((i) => i.args);

describe("Dockerfile", () => {
  test("one base image for every stage: Node LTS slim, pinned by digest", () => {
    const arg = dockerfile.preamble.find((i) => i.cmd === "ARG" && i.args.startsWith("NODE_IMAGE="));
    const m = /^NODE_IMAGE=node:(\d+)\.(\d+)\.(\d+)-[a-z]+-slim@sha256:[0-9a-f]{64}$/.exec(arg?.args ?? "");
    expect(m, `ARG NODE_IMAGE=${arg?.args ?? "(missing)"}`).not.toBeNull();
    const major = Number(m?.[1]);
    // Even majors become LTS; package.json asks for >= 20.18.
    expect(major % 2).toBe(0);
    expect(major).toBeGreaterThanOrEqual(20);
    expect(dockerfile.stages.map((s) => s.instructions[0]?.args.split(/\s+/)[0])).toEqual(dockerfile.stages.map(() => "${NODE_IMAGE}"));
  });

  test("the build stage bundles the service; the deps stage installs production dependencies only, then drops what the bundle carries", () => {
    expect(runs(stage("build")).some((r) => /deploy\/docker\/bundle\.ts "\$\{SERVICE\}"/.test(r))).toBe(true);
    expect(runs(stage("build")).some((r) => /deploy\/docker\/unused-installs\.ts "\$\{SERVICE\}" > \/unused-installs\.txt/.test(r))).toBe(true);
    const deps = runs(stage("deps"));
    const install = deps.findIndex((r) => r.includes("npm ci"));
    expect(deps[install]).toMatch(/npm ci --omit=dev --workspace "services\/\$\{SERVICE\}"/);
    const prune = deps.findIndex((r) => r.includes("xargs -r rm -rf < /tmp/unused-installs.txt"));
    expect(prune, "the prune runs after the install").toBeGreaterThan(install);
    expect(stage("deps").instructions.some((i) => i.cmd === "COPY" && i.args === "--from=build /unused-installs.txt /tmp/unused-installs.txt")).toBe(true);
  });

  test("the final stage: bundle and production node_modules only, non-root, a health check, no package manager", () => {
    const final = dockerfile.stages[dockerfile.stages.length - 1];
    expect(final?.name).toBe("runtime");
    const ins = final?.instructions ?? [];
    const copies = ins.filter((i) => i.cmd === "COPY").map((i) => i.args);
    expect(copies.length).toBeGreaterThan(0);
    for (const c of copies) expect(c, "the final stage copies only from the build and deps stages").toMatch(/^--from=(deps|build) /);
    for (const r of ins.filter((i) => i.cmd === "RUN").map((i) => i.args)) expect(r).not.toMatch(/\bnpm (ci|install|i)\b/);
    const users = ins.filter((i) => i.cmd === "USER").map((i) => i.args);
    expect(users).toHaveLength(1);
    const [uid, gid] = (users[0] ?? "").split(":").map(Number);
    expect(uid).toBeGreaterThan(0);
    expect(gid).toBeGreaterThan(0);
    expect(ins.some((i) => i.cmd === "ENV" && /\bHEALTH_PORT=9100\b/.test(i.args))).toBe(true);
    expect(ins.some((i) => i.cmd === "ENV" && /\bNODE_ENV=production\b/.test(i.args))).toBe(true);
    const health = ins.find((i) => i.cmd === "HEALTHCHECK")?.args ?? "";
    expect(health).toMatch(/CMD \["node", "-e", /);
    expect(health).toContain("process.env.HEALTH_PORT");
    expect(health).toContain("/readyz");
    expect(ins.find((i) => i.cmd === "WORKDIR" && i.args.includes("${SERVICE}"))?.args).toBe("/app/services/${SERVICE}");
    expect(ins.find((i) => i.cmd === "CMD")?.args).toBe('["node", "--max-semi-space-size=1", "--expose-gc", "--memory-pool-timeout=1", "dist/main.js"]');
    expect(runs(final ?? { name: "", instructions: [] }).join(" ")).toMatch(/rm -f \/usr\/local\/bin\/npm \/usr\/local\/bin\/npx/);
  });

  test("no secret is baked in: no secret-named ENV, ARG or LABEL, no .env copied", () => {
    const all = [...dockerfile.preamble, ...dockerfile.stages.flatMap((s) => s.instructions)];
    const named = all.filter((i) => ["ENV", "ARG", "LABEL"].includes(i.cmd)).flatMap((i) => [...i.args.matchAll(/([A-Za-z_][A-Za-z0-9_.]*)=/g)].map((m) => m[1] ?? ""));
    expect(named.filter((n) => SECRET_VARIABLE.test(n))).toEqual([]);
    expect(all.filter((i) => i.cmd === "COPY" && /\.env\b/.test(i.args))).toEqual([]);
  });

  test("parseDockerfile joins continuation lines and names stages", () => {
    const parsed = parseDockerfile("ARG A=1\n# note\nFROM x AS one\nRUN a \\\n  # inside\n  && b\nFROM y\nUSER 1:1\n");
    expect(parsed.preamble).toEqual([{ cmd: "ARG", args: "A=1", line: 1 }]);
    expect(parsed.stages.map((s) => s.name)).toEqual(["one", "1"]);
    expect(parsed.stages[0]?.instructions[1]).toEqual({ cmd: "RUN", args: "a && b", line: 4 });
  });
});

test(".dockerignore keeps installed, generated and secret files out of the build context", () => {
  const entries = readFileSync(path.join(root, ".dockerignore"), "utf8")
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("#"));
  for (const required of ["**/node_modules", ".git", "**/.data", ".env", "test-results", "bench/results", "**/dist"]) expect(entries).toContain(required);
});
