import { MCP_TOOL_BY_NAME, OUTPUT_EXAMPLES, ROUTE_BY_PATH, sellingQuery, VIEW_SCHEMAS, type McpTool, type Route } from "@board/proto";
import {
  BAZAAR,
  bazaarResourceServerExtension,
  declareDiscoveryExtension,
  validateDiscoveryExtension,
  type DiscoveryExtension,
} from "@x402/extensions/bazaar";
import { z } from "zod";

/** A JSON Schema (draft 2020-12) as zod writes it. */
type JsonSchema = Record<string, unknown>;

/** The extension's key in a 402's `extensions` ("bazaar"). */
export const BAZAAR_KEY = BAZAAR.key;

/**
 * How deep a declared output schema goes: 1 keeps the body's top-level fields (type, const,
 * enum, description, required) and cuts every nested object and array to its type. The 402's
 * header carries the declaration base64, and @x402/fetch echoes it back in PAYMENT-SIGNATURE,
 * which payments takes up to 16,384 characters. Measured: with the agent view's full zod
 * schema (10.7 kB) its declaration is 11.7 kB, 15.6 kB in base64, too much for that header
 * with the rest of the payment; cut at 1 it is 1.7 kB, and no route's is over 2.0 kB (no
 * tool's over 2.6 kB). The whole schema stays at /openapi.json, which the declaration names.
 */
export const OUTPUT_SCHEMA_DEPTH = 1;

/** The keywords a bounded schema keeps: what a buyer needs to know the shape, none of the checks (patterns, bounds). */
const KEPT_KEYWORDS = ["type", "const", "enum", "description"] as const;

/**
 * A schema cut at `depth`: objects keep their properties (and required list) above the cut,
 * unions keep their branches, and at the cut an object or array is only its type. Patterns,
 * formats and numeric bounds are dropped everywhere (the full schema has them).
 */
export function boundedSchema(schema: JsonSchema, depth: number): JsonSchema {
  const out: JsonSchema = {};
  for (const key of KEPT_KEYWORDS) if (schema[key] !== undefined) out[key] = schema[key];
  for (const key of ["anyOf", "oneOf"] as const) {
    const branches = schema[key];
    if (Array.isArray(branches)) out[key] = (branches as JsonSchema[]).map((b) => boundedSchema(b, depth));
  }
  if (depth <= 0) return out;
  const properties = schema["properties"];
  if (typeof properties === "object" && properties !== null) {
    out["properties"] = Object.fromEntries(Object.entries(properties as Record<string, JsonSchema>).map(([k, v]) => [k, boundedSchema(v, depth - 1)]));
    if (Array.isArray(schema["required"])) out["required"] = schema["required"];
  }
  const items = schema["items"];
  if (typeof items === "object" && items !== null && !Array.isArray(items)) out["items"] = boundedSchema(items as JsonSchema, depth - 1);
  return out;
}

/**
 * The smallest value a bounded schema accepts: its required fields, each its const, first enum
 * value or an empty value of its type. The bazaar extension carries an output schema only as
 * the schema of an output example; this shape is the example only of a route no served read
 * is kept for (boundedExample).
 */
export function shapeExample(schema: JsonSchema): unknown {
  if (schema["const"] !== undefined) return schema["const"];
  if (Array.isArray(schema["enum"])) return schema["enum"][0];
  const branches = schema["anyOf"] ?? schema["oneOf"];
  if (Array.isArray(branches) && branches.length > 0) return shapeExample(branches[0] as JsonSchema);
  const type = Array.isArray(schema["type"]) ? schema["type"][0] : schema["type"];
  switch (type) {
    case "string":
      return "";
    case "number":
    case "integer":
      return 0;
    case "boolean":
      return false;
    case "null":
      return null;
    case "array":
      return [];
    default: {
      const properties = (schema["properties"] ?? {}) as Record<string, JsonSchema>;
      const required = Array.isArray(schema["required"]) ? (schema["required"] as string[]) : [];
      return Object.fromEntries(required.map((k) => [k, shapeExample(properties[k] ?? {})]));
    }
  }
}

/**
 * A served board's read (proto's OUTPUT_EXAMPLES) cut as the bounded schema is: its values down
 * to `depth`, and below it each object or list empty. Its top-level values are a real read's,
 * where the shape alone would give empty strings and zeros.
 */
export function boundedExample(value: unknown, depth: number): unknown {
  if (Array.isArray(value)) return depth <= 0 ? [] : value.map((v) => boundedExample(v, depth - 1));
  if (typeof value === "object" && value !== null) {
    return depth <= 0 ? {} : Object.fromEntries(Object.entries(value).map(([k, v]) => [k, boundedExample(v, depth - 1)]));
  }
  return value;
}

/** zod's JSON Schema of a proto schema, without the document-level keys (it is embedded). */
function jsonSchema(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { target: "draft-2020-12", io }) as JsonSchema;
  return rest;
}

/** A paid read's body, bounded, with a pointer to its full schema; and its shape as the example. */
function output(route: Route, base: URL): { example: unknown; schema: JsonSchema } {
  if (route.view === null) throw new Error(`${route.path} serves no view`);
  const full = jsonSchema(VIEW_SCHEMAS[route.view], "output");
  const schema = {
    ...boundedSchema(full, OUTPUT_SCHEMA_DEPTH),
    description: `The body's top-level fields; nested objects and arrays are cut to their type. The full schema is the 200 response of GET ${route.path} in ${new URL("/openapi.json", base).toString()}.`,
  };
  // A route added since the examples were made has only its shape until they are made again (the examples' test names it).
  const served = OUTPUT_EXAMPLES[route.path];
  return { example: served === undefined ? shapeExample(schema) : boundedExample(served, OUTPUT_SCHEMA_DEPTH), schema };
}

/** The example query of a route: the parameters it needs to sell its paid read (proto's sellingQuery, the URLs listings give), never an optional one such as preview=1 that may change what is sold. */
const queryExample = (route: Route): Record<string, string> => sellingQuery(route);

/** The extension's own check; a declaration that fails it is a bug here, not a client's problem. */
function validated(extension: DiscoveryExtension, what: string): DiscoveryExtension {
  const result = validateDiscoveryExtension(extension);
  if (!result.valid) throw new Error(`the bazaar declaration of ${what} is invalid: ${(result.errors ?? []).join("; ")}`);
  return deepFreeze(extension);
}

/** Cached declarations are shared by every 402: frozen, so no caller can change another's. */
function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/**
 * A paid route's declaration over HTTP: GET, its query parameters as accepted (zod's input
 * side: sym is a comma-separated string, or the values of sym repeated), and its bounded output. The method
 * is added the way x402's HTTP middleware does, by the extension's own enrichDeclaration.
 */
export function buildRouteDeclaration(route: Route, base: URL): DiscoveryExtension {
  if (route.kind !== "paid") throw new Error(`${route.path} is not a paid route`);
  const inputSchema = jsonSchema(route.query, "input");
  const declared = declareDiscoveryExtension({ input: queryExample(route), inputSchema, output: output(route, base) })[BAZAAR.key];
  const context = { method: "GET", path: route.path, adapter: { getPath: () => route.path } };
  const enriched = bazaarResourceServerExtension.enrichDeclaration?.(declared, context) as DiscoveryExtension | undefined;
  if (!enriched) throw new Error("@x402/extensions' bazaar server extension no longer enriches declarations");
  return validated(enriched, `GET ${route.path}`);
}

/** A paid MCP tool's declaration: the tool, its JSON arguments as tools/list gives them, the MCP transport, and its route's bounded output. */
export function buildToolDeclaration(tool: McpTool, base: URL): DiscoveryExtension {
  const route = "route" in tool.source ? ROUTE_BY_PATH.get(tool.source.route) : undefined;
  if (tool.access !== "x402" || !route) throw new Error(`${tool.name} is not a paid tool`);
  const declared = declareDiscoveryExtension({
    toolName: tool.name,
    description: tool.description,
    transport: "streamable-http",
    inputSchema: jsonSchema(tool.input, "input"),
    output: output(route, base),
  })[BAZAAR.key];
  if (!declared) throw new Error("@x402/extensions' declareDiscoveryExtension no longer answers under its key");
  return validated(declared, `the MCP tool ${tool.name}`);
}

/** Declarations per public base URL and route path or tool name: a 402 must stay cheap, so each is built once. */
const cache = new Map<string, DiscoveryExtension>();

/** The paid MCP tool named `name` when it sells `route` (the tool a gateway's MCP 402 answers for); undefined otherwise. */
export function paidToolFor(route: Route, name: string): McpTool | undefined {
  const tool = MCP_TOOL_BY_NAME.get(name);
  return tool?.access === "x402" && "route" in tool.source && tool.source.route === route.path ? tool : undefined;
}

/**
 * The bazaar declaration for a paid route's 402: the HTTP one, or with `tool` (the 402 answers
 * that paid MCP tool's call, see paidToolFor) the tool's.
 */
export function bazaarDeclaration(route: Route, base: URL, tool?: McpTool): DiscoveryExtension {
  const key = `${base.origin} ${tool === undefined ? route.path : `mcp:${tool.name}`}`;
  let known = cache.get(key);
  if (!known) cache.set(key, (known = tool === undefined ? buildRouteDeclaration(route, base) : buildToolDeclaration(tool, base)));
  return known;
}
