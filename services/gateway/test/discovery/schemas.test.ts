import { FreshnessBlock, FullBoard, NameRecord } from "@board/proto";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { componentSchemas, protoName, schemaOfValue } from "../../src/discovery/schemas.js";

describe("componentSchemas", () => {
  const schemas = componentSchemas(new Map([["Board", FullBoard]]), "output");

  it("names the roots as given and the proto schemas inside them after their proto names", () => {
    expect(Object.keys(schemas)).toEqual(expect.arrayContaining(["Board", "NameRecord", "FreshnessBlock", "BookCode"]));
    expect(protoName(FullBoard)).toBe("FullBoard");
    expect(JSON.stringify(schemas["Board"])).toContain('"$ref":"#/components/schemas/NameRecord"');
    // The proto schema written out, with the named schema inside it (DataDelay) referred to, not copied.
    const written = (({ $schema: _s, ...rest }) => rest)(z.toJSONSchema(FreshnessBlock, { io: "output" }) as Record<string, unknown>) as { properties: Record<string, unknown> };
    expect(schemas["DataDelay"]).toEqual(written.properties["data_delay"]);
    expect(schemas["FreshnessBlock"]).toEqual({ ...written, properties: { ...written.properties, data_delay: { $ref: "#/components/schemas/DataDelay" } } });
    expect(schemas["Board"]).not.toHaveProperty("$schema");
    expect(schemas["Board"]).not.toHaveProperty("$id");
  });

  it("spells out the keys of a record keyed by an enum", () => {
    const books = (schemas["Board"] as { properties: { books: { required: string[]; properties: Record<string, unknown> } } }).properties.books;
    expect(Object.keys(books.properties)).toEqual(books.required);
  });

  it("writes what a service accepts as input (no closed objects, transforms as their input)", () => {
    const input = componentSchemas(new Map([["Name", NameRecord]]), "input");
    expect(input["Name"]).not.toHaveProperty("additionalProperties");
  });
});

describe("schemaOfValue", () => {
  it("describes a value's shape", () => {
    expect(schemaOfValue({ a: "x", b: [1], c: 1.5, d: true })).toEqual({
      type: "object",
      properties: { a: { type: "string" }, b: { type: "array", items: { type: "integer" } }, c: { type: "number" }, d: { type: "boolean" } },
      required: ["a", "b", "c", "d"],
    });
  });
});
