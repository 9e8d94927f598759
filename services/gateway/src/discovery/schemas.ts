import * as proto from "@board/proto";
import { z } from "zod";

/** A JSON Schema (draft 2020-12, the dialect of OpenAPI 3.1) as zod writes it. */
export type JsonSchema = Record<string, unknown>;

type AnySchema = z.core.$ZodType;

const isSchema = (v: unknown): v is AnySchema => typeof v === "object" && v !== null && "_zod" in v;

/**
 * The names proto exports its schemas under, by instance, so a component is called what the
 * code calls it (FullBoard, NameRecord). An instance exported twice (FullBoard is also
 * PreviewBoard and DelayedBoard) takes its shortest name.
 */
const PROTO_NAMES: ReadonlyMap<AnySchema, string> = (() => {
  const names = new Map<AnySchema, string>();
  for (const [name, value] of Object.entries(proto)) {
    if (!isSchema(value)) continue;
    const known = names.get(value);
    if (known === undefined || name.length < known.length || (name.length === known.length && name < known)) names.set(value, name);
  }
  return names;
})();

export const protoName = (schema: AnySchema): string | undefined => PROTO_NAMES.get(schema);

/** The definition keys that hold child schemas (checks and default values are not schemas of the body). */
const CHILD_KEYS = ["shape", "element", "options", "keyType", "valueType", "innerType", "in", "out", "left", "right", "items", "rest", "catchall"];

function children(schema: AnySchema): AnySchema[] {
  const def = schema._zod.def as unknown as Record<string, unknown>;
  const out: AnySchema[] = [];
  for (const key of CHILD_KEYS) {
    const value = def[key];
    if (isSchema(value)) out.push(value);
    else if (Array.isArray(value)) out.push(...value.filter(isSchema));
    else if (typeof value === "object" && value !== null) out.push(...Object.values(value).filter(isSchema));
  }
  return out;
}

/** Kinds worth a component of their own when shared: bodies, their parts and the closed vocabularies. */
const COMPONENT_KINDS = new Set(["object", "union", "enum"]);

/**
 * Converts body schemas to OpenAPI components in one pass of zod's own JSON Schema writer:
 * each root under its given name, and every proto-named object, union or enum they contain
 * under its proto name, referenced by $ref wherever it recurs. `io` is "output" for what the
 * service sends and "input" for what it accepts.
 */
export function componentSchemas(
  roots: ReadonlyMap<string, AnySchema>,
  io: "input" | "output",
  uri: (id: string) => string = (id) => `#/components/schemas/${id}`,
): Record<string, JsonSchema> {
  const registry = z.registry<{ id: string }>();
  const named = new Map<AnySchema, string>();
  const taken = new Set<string>();
  const name = (schema: AnySchema, wanted: string) => {
    if (named.has(schema)) return;
    let id = wanted;
    for (let n = 2; taken.has(id); n++) id = `${wanted}${n}`;
    taken.add(id);
    named.set(schema, id);
    registry.add(schema, { id });
  };
  for (const [id, schema] of roots) name(schema, id);

  const seen = new Set<AnySchema>();
  const walk = (schema: AnySchema) => {
    if (seen.has(schema)) return;
    seen.add(schema);
    const found = protoName(schema);
    if (found !== undefined && COMPONENT_KINDS.has(schema._zod.def.type)) name(schema, found);
    children(schema).forEach(walk);
  };
  roots.forEach(walk);

  const { schemas } = z.toJSONSchema(registry, { target: "draft-2020-12", io, uri });
  return Object.fromEntries(Object.entries(schemas).map(([id, schema]) => [id, withoutDialect(schema as JsonSchema)]));
}

const ROOT = "$root";

/**
 * One body as a document of its own (an MCP tool's outputSchema): the same components the
 * OpenAPI document names, under the root's $defs instead of #/components/schemas.
 */
export function standaloneSchema(schema: AnySchema, io: "input" | "output"): JsonSchema {
  const { [ROOT]: root, ...defs } = componentSchemas(new Map([[ROOT, schema]]), io, (id) => `#/$defs/${id}`);
  if (!root) throw new Error("the root schema was not written");
  return Object.keys(defs).length > 0 ? { ...root, $defs: defs } : root;
}

/** One schema on its own (a query parameter), inlined, without the document-level keys. */
export function inlineSchema(schema: AnySchema, io: "input" | "output"): JsonSchema {
  return withoutDialect(z.toJSONSchema(schema, { target: "draft-2020-12", io }) as JsonSchema);
}

/** $schema and $id belong to standalone documents, not to components of one. */
function withoutDialect(schema: JsonSchema): JsonSchema {
  const { $schema: _schema, $id: _id, ...rest } = schema;
  return spelledOut(rest) as JsonSchema;
}

/**
 * A record keyed by an enum (books by book code) is written by zod as `required` keys with
 * `additionalProperties`; spelling each key out under `properties` says the same thing in
 * the form OpenAPI tools read (and lint for).
 */
function spelledOut(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(spelledOut);
  if (typeof node !== "object" || node === null) return node;
  const out = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, spelledOut(v)])) as JsonSchema;
  const required = out["required"];
  const each = out["additionalProperties"];
  if (Array.isArray(required) && typeof each === "object" && each !== null) {
    const properties = { ...((out["properties"] as JsonSchema | undefined) ?? {}) };
    for (const key of required as string[]) if (!(key in properties)) properties[key] = each;
    out["properties"] = properties;
  }
  return out;
}

/** A JSON Schema that describes a value as it is (the OAuth metadata, which the gateway builds from the base URL). */
export function schemaOfValue(value: unknown): JsonSchema {
  if (Array.isArray(value)) return { type: "array", items: value.length > 0 ? schemaOfValue(value[0]) : {} };
  if (value === null) return { type: "null" };
  if (typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>);
    return { type: "object", properties: Object.fromEntries(entries.map(([k, v]) => [k, schemaOfValue(v)])), required: entries.map(([k]) => k) };
  }
  if (typeof value === "number") return { type: Number.isInteger(value) ? "integer" : "number" };
  return { type: typeof value };
}
