import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { Ajv } from "ajv";
import addFormatsModule, { type FormatsPlugin } from "ajv-formats";
import { describe, expect, it } from "vitest";
import { serverCard } from "../../src/discovery/server-card.js";
import { MCP_REGISTRY_SCHEMA } from "./env.js";
import { SERVER_JSON_SCHEMA, serverJson, serverJsonText, type ServerJson } from "../../src/discovery/server-json.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
const committedText = readFileSync(path.join(ROOT, "server.json"), "utf8");
const committed = JSON.parse(committedText) as ServerJson;
// ajv-formats is CommonJS: its default export arrives as the module object under ESM.
const addFormats = ((addFormatsModule as unknown as { default?: FormatsPlugin }).default ?? addFormatsModule) as FormatsPlugin;

/**
 * The registry's published schema (JSON Schema draft-07, $id SERVER_JSON_SCHEMA) is not kept in
 * this repository: MCP_REGISTRY_SCHEMA names a copy of it (docs/mcp.md says where it is
 * published). Without it, that one check is skipped and says so.
 */
const schemaPath = MCP_REGISTRY_SCHEMA;

describe("server.json", () => {
  it("is what the generator makes of the server card for its base URL", () => {
    expect(committedText).toBe(serverJsonText(new URL(committed.websiteUrl)));
  });

  it("is the one scripts/mcp/server-json.ts makes for the deployment's base URL (its --check passes)", async () => {
    const tsx = path.join(ROOT, "node_modules/.bin/tsx");
    await expect(promisify(execFile)(tsx, ["scripts/mcp/server-json.ts", "--check"], { cwd: ROOT })).resolves.toBeDefined();
  });

  it("lists the card's remotes: /mcp with X-License-Key and the payment note, /mcp/live with Authorization", () => {
    const base = new URL(committed.websiteUrl);
    const card = serverCard(base);
    expect(committed.$schema).toBe(SERVER_JSON_SCHEMA);
    expect(committed.name).toBe(card.name);
    expect(committed.remotes.map((r) => [r.type, r.url])).toEqual(card.remotes.map((r) => [r.type, r.url]));
    const [open, live] = committed.remotes;
    expect(open?.headers).toEqual([expect.objectContaining({ name: "X-License-Key", isRequired: false, isSecret: true })]);
    expect(open?.headers?.[0]?.description).toContain('_meta["x402/payment"]');
    expect(live?.headers).toEqual([expect.objectContaining({ name: "Authorization", isRequired: false, isSecret: true })]);
    // The registry's limits: a reverse-DNS name with one slash, a description of at most 100 characters.
    expect(committed.name).toMatch(/^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/);
    expect(committed.description.length).toBeLessThanOrEqual(100);
  });

  it.skipIf(!schemaPath)("validates against the MCP registry's published server.schema.json (MCP_REGISTRY_SCHEMA)", () => {
    const schema = JSON.parse(readFileSync(schemaPath!, "utf8")) as { $id: string; $schema: string };
    expect(schema.$id).toBe(SERVER_JSON_SCHEMA);
    const ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(ajv);
    const validate = ajv.compile(schema);
    expect(validate(committed), JSON.stringify(validate.errors)).toBe(true);
    // The validator bites: another host's file is valid too, a name without its namespace is not.
    expect(validate(serverJson(new URL("https://board.example.org")))).toBe(true);
    expect(validate({ ...committed, name: "scored-market-board" })).toBe(false);
  });
});
