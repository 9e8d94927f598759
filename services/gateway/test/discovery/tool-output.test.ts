import { LaneEntry, MCP_TOOLS, toolView, VIEW_SCHEMAS, type ErrorBody } from "@board/proto";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { LISTED_TOOLS } from "../../src/discovery/mcp-tools.js";
import { dialectNeutral, outputFor, toolOutput, WRAPPED_KEY } from "../../src/discovery/tool-output.js";

const error: ErrorBody = { error: { code: "invalid_query", message: "Argument 'sym': required.", status: 400, param: "sym" } };
const paymentRequired = {
  x402Version: 2,
  error: "payment_required",
  resource: { url: "https://board.example.org/api/board/regime", description: "Regime", mimeType: "application/json" },
  accepts: [{ scheme: "exact", network: "eip155:8453", amount: "5000", asset: "0xabc", payTo: "0xdef", maxTimeoutSeconds: 60, extra: { name: "USD Coin" } }],
  extensions: { bazaar: {} },
};

/** The validator the MCP SDK client checks structuredContent with (ajv, its default settings). */
const sdkValidator = new AjvJsonSchemaValidator();

describe("each tool's outputSchema", () => {
  it("is listed on every tool, an object at its top, and compiles under the SDK client's ajv and under JSON Schema 2020-12", () => {
    const ajv2020 = new Ajv2020({ strict: false, validateFormats: false });
    expect(LISTED_TOOLS.map((t) => t.name)).toEqual(MCP_TOOLS.map((t) => t.name));
    for (const listed of LISTED_TOOLS) {
      expect(listed.outputSchema?.type, listed.name).toBe("object");
      expect(() => sdkValidator.getValidator(listed.outputSchema!), listed.name).not.toThrow();
      expect(() => ajv2020.compile(listed.outputSchema!), listed.name).not.toThrow();
    }
    // Compiling 52 validators takes seconds on a loaded machine.
  }, 60_000);

  it("declares the view's body under the names OpenAPI gives its parts", () => {
    const board = toolOutput(MCP_TOOLS.find((t) => t.name === "get_delayed_board")!).schema as unknown as { anyOf: unknown[]; $defs: Record<string, unknown> };
    expect(board.anyOf[0]).toEqual({ $ref: "#/$defs/FullBoard" });
    expect(Object.keys(board.$defs)).toEqual(expect.arrayContaining(["FullBoard", "NameRecord", "FreshnessBlock", "ErrorBody"]));
    // A view that is a union (a name read, or the directory for unknown symbols) is flattened into the branches.
    const name = toolOutput(MCP_TOOLS.find((t) => t.name === "get_name_live")!).schema as unknown as { anyOf: { $ref?: string }[] };
    expect(name.anyOf.slice(0, 2)).toEqual([{ $ref: "#/$defs/NameView" }, { $ref: "#/$defs/NameDirectoryView" }]);
  });

  it("admits the error body on every tool and x402's PaymentRequired on the paid ones only", () => {
    for (const tool of MCP_TOOLS) {
      const valid = sdkValidator.getValidator(toolOutput(tool).schema);
      expect(valid(error).valid, tool.name).toBe(true);
      expect(valid(paymentRequired).valid, tool.name).toBe(tool.access === "x402");
      expect(valid({ unrelated: true }).valid, tool.name).toBe(false);
    }
  });

  it("serves no tool's body wrapped: every view is a JSON object", () => {
    for (const tool of MCP_TOOLS) expect(toolOutput(tool).wrapped, tool.name).toBe(false);
    for (const tool of MCP_TOOLS) expect(VIEW_SCHEMAS[toolView(tool)!], tool.name).toBeDefined();
  });

  it("wraps a body that is not an object under `value`", () => {
    const output = outputFor(z.array(z.string()), "free");
    expect(output.wrapped).toBe(true);
    const valid = sdkValidator.getValidator(output.schema);
    expect(valid({ [WRAPPED_KEY]: ["a", "b"] }).valid).toBe(true);
    expect(valid(["a", "b"]).valid).toBe(false);
    expect(valid(error).valid).toBe(true);
  });

  it("writes tuples so that draft-07 (the SDK client's ajv) and 2020-12 read them alike", () => {
    const lane = outputFor(z.object({ targets: LaneEntry.shape.targets }), "free");
    expect(JSON.stringify(lane.schema)).not.toContain("prefixItems");
    const draft07 = sdkValidator.getValidator(lane.schema);
    const draft2020 = new Ajv2020({ strict: false }).compile(lane.schema);
    for (const [targets, ok] of [
      [[110, 120], true],
      [[110], false],
      [[110, 120, 130], false],
      [[110, -1], false],
    ] as const) {
      expect(draft07({ targets }).valid, JSON.stringify(targets)).toBe(ok);
      expect(draft2020({ targets }), JSON.stringify(targets)).toBe(ok);
    }
  });

  it("turns a tuple into an array of its length whose items match one of its positions", () => {
    expect(dialectNeutral({ type: "array", prefixItems: [{ type: "number" }, { type: "number" }], items: false, minItems: 2, maxItems: 2 })).toEqual({
      type: "array",
      items: { type: "number" },
      minItems: 2,
      maxItems: 2,
    });
    expect(dialectNeutral({ type: "array", prefixItems: [{ type: "number" }], items: { type: "string" }, minItems: 1 })).toEqual({
      type: "array",
      items: { anyOf: [{ type: "number" }, { type: "string" }] },
      minItems: 1,
    });
  });
});
