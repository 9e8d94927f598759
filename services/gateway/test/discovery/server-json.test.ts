import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { Ajv } from "ajv";
import addFormatsModule, { type FormatsPlugin } from "ajv-formats";
import { describe, expect, it } from "vitest";
import { serverCard } from "../../src/discovery/server-card.js";
import { SERVER_JSON_SCHEMA, serverJson, serverJsonText, type ServerJson } from "../../src/discovery/server-json.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
const committedText = readFileSync(path.join(ROOT, "server.json"), "utf8");
const committed = JSON.parse(committedText) as ServerJson;
// ajv-formats is CommonJS: its default export arrives as the module object under ESM.
const addFormats = ((addFormatsModule as unknown as { default?: FormatsPlugin }).default ?? addFormatsModule) as FormatsPlugin;

/**
 * The registry's published schema (JSON Schema draft-07, $id SERVER_JSON_SCHEMA), kept beside this
 * test unchanged: fixtures/README.md says where it was copied from.
 */
const registrySchema = JSON.parse(readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), "fixtures/mcp-registry-server.schema.json"), "utf8")) as {
  $id: string;
  $schema: string;
};

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

  it("validates against the MCP registry's published server.schema.json, which refuses a broken copy", () => {
    expect(registrySchema.$id).toBe(SERVER_JSON_SCHEMA);
    expect(registrySchema.$schema).toBe("http://json-schema.org/draft-07/schema#");
    const ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(ajv);
    const validate = ajv.compile(registrySchema);
    expect(validate(committed), JSON.stringify(validate.errors)).toBe(true);
    expect(validate(serverJson(new URL("https://board.example.org")))).toBe(true);
    // The validator bites: each of these breaks one of the registry's rules.
    const [open] = committed.remotes;
    const broken: [string, unknown][] = [
      ["a name without its namespace", { ...committed, name: "scored-market-board" }],
      ["a description over 100 characters", { ...committed, description: "x".repeat(101) }],
      ["no version", { ...committed, version: undefined }],
      ["a remote URL that is not http(s)", { ...committed, remotes: [{ ...open, url: "ftp://board.example.com/mcp" }] }],
      ["a header without its name", { ...committed, remotes: [{ ...open, headers: [{ description: "nameless" }] }] }],
      ["a header format the registry does not know", { ...committed, remotes: [{ ...open, headers: [{ ...open?.headers?.[0], format: "secret" }] }] }],
    ];
    for (const [what, doc] of broken) expect(validate(JSON.parse(JSON.stringify(doc))), what).toBe(false);
  });
});
