/**
 * Writes server.json, the MCP registry's entry for the service, at the repository root, from
 * the gateway's server card. `--base URL`: the public base URL (the deployment's
 * PUBLIC_BASE_URL, deploy/k8s/base/common.env, by default); `--check`: write nothing, fail
 * when the committed file differs.
 *
 *   npx tsx scripts/mcp/server-json.ts [--base https://board.example.com] [--check]
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { serverJsonText } from "../../services/gateway/src/discovery/server-json.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const SERVER_JSON_PATH = path.join(ROOT, "server.json");

/** The deployment's public base URL: what the committed server.json is made for. */
export function deployedBase(): URL {
  const env = readFileSync(path.join(ROOT, "deploy/k8s/base/common.env"), "utf8");
  const line = /^PUBLIC_BASE_URL=(.+)$/m.exec(env)?.[1]?.trim();
  if (!line) throw new Error("deploy/k8s/base/common.env sets no PUBLIC_BASE_URL");
  return new URL(line);
}

function main(): void {
  const { values } = parseArgs({ options: { base: { type: "string" }, check: { type: "boolean", default: false } } });
  const text = serverJsonText(values.base ? new URL(values.base) : deployedBase());
  if (values.check) {
    let committed = "";
    try {
      committed = readFileSync(SERVER_JSON_PATH, "utf8");
    } catch {
      // No file: it differs.
    }
    if (committed !== text) {
      process.stderr.write("server.json differs from the server card: run npx tsx scripts/mcp/server-json.ts\n");
      process.exit(1);
    }
    return;
  }
  writeFileSync(SERVER_JSON_PATH, text);
  process.stdout.write(`wrote ${path.relative(process.cwd(), SERVER_JSON_PATH) || SERVER_JSON_PATH}\n`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
