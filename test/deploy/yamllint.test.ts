import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect, test } from "vitest";
import { toolEnv } from "./env.js";
import { root, run, tool } from "./tools.js";

const CONFIG = path.join(root, ".yamllint");

test("yamllint (strict) is clean on docker-compose.yml, deploy/ and its own config", () => {
  const res = run(tool("yamllint"), ["-c", CONFIG, "-s", "-f", "parsable", "docker-compose.yml", "deploy", ".yamllint"], { env: toolEnv });
  expect(res.stdout + res.stderr).toBe("");
  expect(res.status).toBe(0);
});

test("the committed rules still catch what they are for", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "yamllint-"));
  try {
    const file = path.join(dir, "bad.yaml");
    writeFileSync(file, `key: yes\nlist:\n    - a\nlong: ${"x".repeat(170)}\ntrailing: 1 \n`);
    const res = run(tool("yamllint"), ["-c", CONFIG, "-s", "-f", "parsable", file], { env: toolEnv });
    expect(res.status).not.toBe(0);
    for (const rule of ["truthy", "indentation", "line-length", "trailing-spaces"]) expect(res.stdout).toContain(`(${rule})`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
