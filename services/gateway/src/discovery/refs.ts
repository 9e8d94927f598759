import type { ZodContentObject, ZodMediaTypeObject } from "@asteasolutions/zod-to-openapi";
import type { JsonSchema } from "./schemas.js";

/** A reference to a component of the document. */
export const ref = (kind: "schemas" | "parameters" | "headers", name: string): JsonSchema => ({ $ref: `#/components/${kind}/${name}` });

/** "/api/board/top-volume" -> "ApiBoardTopVolume": names made from paths and view names. */
export const pascal = (s: string) => s.replace(/(^|[^a-zA-Z0-9])([a-zA-Z0-9])/g, (_, _sep: string, c: string) => c.toUpperCase());

/** Bodies by media type. The schemas are JSON Schema already (zod's own writer made them): the generator passes them through. */
export const content = (byType: Record<string, JsonSchema>, extra: Record<string, unknown> = {}): ZodContentObject =>
  Object.fromEntries(Object.entries(byType).map(([type, schema]) => [type, { schema: schema as unknown as ZodMediaTypeObject["schema"], ...extra }]));

export const json = (schema: JsonSchema) => content({ "application/json": schema });
