import { ErrorBody, toolView, VIEW_SCHEMAS, type McpTool, type McpToolAccess } from "@board/proto";
import { z } from "zod";
import { standaloneSchema, type JsonSchema } from "./schemas.js";
import { X402PaymentRequired } from "./wire-schemas.js";

/** What a tool's results carry in structuredContent, as tools/list declares it. */
export interface ToolOutput {
  /** The tool's outputSchema: a JSON Schema whose top is an object, as MCP requires. */
  readonly schema: JsonSchema & { type: "object" };
  /** Whether a served body rides under WRAPPED_KEY (a body that is not a JSON object) instead of being structuredContent itself. */
  readonly wrapped: boolean;
}

/** structuredContent must be an object: a body that is not one (none today) rides as { value: body }. */
export const WRAPPED_KEY = "value";

/** The branches of a body: a union's options each, anything else itself. */
const branches = (schema: z.ZodType): z.ZodType[] => (schema instanceof z.ZodUnion ? (schema.options as z.ZodType[]).flatMap(branches) : [schema]);

const isObject = (schema: z.ZodType): boolean => branches(schema).every((b) => b instanceof z.ZodObject);

/**
 * The output of a tool that serves `body` (null: a read not served yet). Its outputSchema is
 * written from proto by the OpenAPI document's own writer: the body (the schema the board
 * checks the view against), and the refusals that also carry structuredContent: the API's
 * error body, and on a paid tool x402's PaymentRequired. Those belong in it because a client
 * validates structuredContent whenever it is present (the MCP SDK client's callTool does,
 * isError or not), so a schema of the served body alone would make every refusal a
 * validation error and hide the offers from a client that must pay.
 */
export function outputFor(body: z.ZodType | null, access: McpToolAccess): ToolOutput {
  const wrapped = body !== null && !isObject(body);
  const served = body === null ? [] : wrapped ? [z.object({ [WRAPPED_KEY]: body })] : branches(body);
  const refused: z.ZodType[] = access === "x402" ? [ErrorBody, X402PaymentRequired] : [ErrorBody];
  const all = [...served, ...refused];
  const schema = dialectNeutral(standaloneSchema(all.length === 1 ? all[0]! : z.union(all as [z.ZodType, z.ZodType, ...z.ZodType[]]), "output")) as JsonSchema;
  // Every branch is an object; saying so at the top is what MCP's Tool.outputSchema requires.
  return { schema: { type: "object", ...schema }, wrapped };
}

/**
 * The schema as it reads the same in JSON Schema 2020-12 (MCP's default dialect, the OpenAPI
 * document's) and draft-07 (the dialect of the ajv the MCP SDK client validates with). Only
 * tuples differ: 2020-12's prefixItems is unknown to draft-07, which reads the `items: false`
 * that closes the tuple as "no items at all". A tuple becomes an array of its length whose
 * items each match one of its positions: exact when the positions share a schema (the
 * targets pair, the only tuple today), looser otherwise, never stricter.
 */
export function dialectNeutral(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(dialectNeutral);
  if (typeof node !== "object" || node === null) return node;
  const { prefixItems, ...rest } = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, dialectNeutral(v)])) as JsonSchema;
  if (!Array.isArray(prefixItems)) return rest;
  const after = rest["items"];
  const positions = [...prefixItems, ...(after === undefined || after === false ? [] : [after])];
  const distinct = [...new Map(positions.map((p) => [JSON.stringify(p), p])).values()];
  return {
    ...rest,
    items: distinct.length === 1 ? distinct[0] : { anyOf: distinct },
    ...(after === false ? { maxItems: rest["maxItems"] ?? prefixItems.length } : {}),
  };
}

const outputs = new WeakMap<McpTool, ToolOutput>();

/** The tool's output, written once per tool. */
export function toolOutput(tool: McpTool): ToolOutput {
  let output = outputs.get(tool);
  if (!output) {
    const view = toolView(tool);
    output = outputFor(view === null ? null : VIEW_SCHEMAS[view], tool.access);
    outputs.set(tool, output);
  }
  return output;
}
