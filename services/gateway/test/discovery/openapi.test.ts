import {
  BOARD_EVENTS_PATH,
  BoardPublishedEvent,
  ERROR_STATUS,
  ErrorCode,
  PAID_ROUTES,
  ROUTE_BY_PATH,
  ROUTES,
  VIEW_SCHEMAS,
  type Route,
} from "@board/proto";
import { Validator } from "@seriousme/openapi-schema-validator";
import { PaymentInfo, validate as validateDiscovery } from "mppx/discovery";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { openApiDocument } from "../../src/discovery/openapi.js";
import { RAILS } from "../../src/discovery/offers.js";

const base = new URL("https://board.example.org");
const doc = openApiDocument(base) as unknown as Doc;

interface Operation {
  operationId: string;
  parameters?: { $ref: string }[];
  responses: Record<string, { description: string; headers?: Record<string, { $ref: string }>; content?: Record<string, { schema: Record<string, unknown> }> }>;
  security: Record<string, string[]>[];
  "x-payment-info"?: unknown;
  "x-x402"?: { resource: string; accepts: { network: string; amount: string; asset: string }[] };
}
interface Doc {
  openapi: string;
  info: { version: string; title: string; description: string };
  servers: { url: string }[];
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Record<string, unknown>>; parameters: Record<string, { name: string; in: string; required: boolean; description: string; schema: Record<string, unknown> }>; securitySchemes: Record<string, Record<string, string>>; headers: Record<string, unknown> };
}

const op = (path: string, method = "get") => {
  const found = doc.paths[path]?.[method];
  if (!found) throw new Error(`${method} ${path} is not documented`);
  return found;
};
const component = (ref: string) => {
  const [, kind, name] = /^#\/components\/(\w+)\/(.+)$/.exec(ref) ?? [];
  return (doc.components as unknown as Record<string, Record<string, unknown>>)[kind!]![name!];
};
/** The reason codes a response lists in its narrowed error schema. */
const codesOf = (r: Operation["responses"][string]) => {
  const schema = r.content?.["application/json"]?.schema as { allOf?: [unknown, { properties: { error: { properties: { code: { enum: string[] } } } } }] };
  return schema?.allOf?.[1].properties.error.properties.code.enum ?? [];
};

describe("openApiDocument", () => {
  it("is a valid OpenAPI 3.1.0 document, version 1.1.0", async () => {
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.info.version).toBe("1.1.0");
    const result = await new Validator().validate(structuredClone(doc) as unknown as Record<string, unknown>);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it("documents every route of the catalogue with exactly its methods, and nothing else", () => {
    const documented = Object.entries(doc.paths).flatMap(([path, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`));
    const served = ROUTES.flatMap((r) => r.methods.map((m) => `${m} ${r.path}`));
    expect(documented.sort()).toEqual(served.sort());
  });

  it("depends on the base URL: servers and the offers' resources follow it", () => {
    expect(doc.servers[0]?.url).toBe("https://board.example.org");
    expect(op("/api/board/regime")["x-x402"]?.resource).toBe("https://board.example.org/api/board/regime");
    const other = openApiDocument(new URL("http://127.0.0.1:9999")) as unknown as Doc;
    expect(other.servers[0]?.url).toBe("http://127.0.0.1:9999");
  });

  it("declares each query parameter once, in components, and routes refer to it ($ref only)", () => {
    for (const route of ROUTES) {
      const params = Object.values(doc.paths[route.path] ?? {}).flatMap((o) => o.parameters ?? []);
      for (const p of params) expect(Object.keys(p)).toEqual(["$ref"]);
      const declared = params.map((p) => component(p.$ref) as { name: string; in: string });
      expect(declared.filter((p) => p.in === "query").map((p) => p.name).sort()).toEqual(Object.keys(route.query.shape).sort());
      // The one header a route reads as a parameter: the event stream's Last-Event-ID.
      expect(declared.filter((p) => p.in !== "query").map((p) => `${p.in} ${p.name}`)).toEqual(route.path === BOARD_EVENTS_PATH ? ["header Last-Event-ID"] : []);
    }
    // SPEC.md shows preview twice on /api/board/agent; it is one parameter here.
    expect(op("/api/board/agent").parameters).toEqual([{ $ref: "#/components/parameters/preview" }]);
    expect(doc.components.parameters["preview"]).toMatchObject({ name: "preview", in: "query", required: false, schema: { const: "1" } });
    // sym is declared in one style, comma-separated in one parameter; its description says the repeated form reads the same.
    expect(doc.components.parameters["sym"]).toMatchObject({ required: true, style: "form", explode: false, schema: { type: "array", maxItems: 10 } });
    const lists = Object.values(doc.components.parameters).filter((p) => p.schema["type"] === "array");
    expect(lists.length).toBeGreaterThan(0);
    for (const p of lists) {
      expect(p).toMatchObject({ in: "query", style: "form", explode: false });
      expect(p.description).toContain("sym=AAPL&sym=MSFT");
    }
    const declared = new Set(Object.keys(doc.components.parameters));
    const used = new Set(Object.values(doc.paths).flatMap((item) => Object.values(item).flatMap((o) => (o.parameters ?? []).map((p) => p.$ref.split("/").pop()!))));
    expect(used).toEqual(declared);
  });

  it("describes each board read's body with its view schema from proto", () => {
    for (const path of ["/api/board/status", "/api/board/symbols", "/api/board/free", "/api/board/agent"]) {
      const route = ROUTE_BY_PATH.get(path)!;
      const ref = op(path).responses["200"]!.content!["application/json"]!.schema["$ref"] as string;
      const name = ref.split("/").pop()!;
      const expected = z.toJSONSchema(VIEW_SCHEMAS[route.view!], { io: "output" }) as Record<string, unknown>;
      // Same properties and required fields as zod's own rendering of the view (nested parts are $refs here).
      expect(Object.keys(doc.components.schemas[name]!["properties"] as object)).toEqual(Object.keys(expected["properties"] as object));
      expect(doc.components.schemas[name]!["required"]).toEqual(expected["required"]);
    }
    expect(op("/api/board/symbols").responses["200"]!.content!["application/json"]!.schema).toEqual({ $ref: "#/components/schemas/SymbolDirectory" });
  });

  it("carries the methodology's additions to the name record and the live setup from proto (SPEC fields unchanged)", () => {
    const props = (name: string) => Object.keys(doc.components.schemas[name]!["properties"] as object);
    expect(props("NameRecord")).toEqual(expect.arrayContaining(["ranked_in", "tt_count", "trigger", "trigger_date", "days_in_state"]));
    expect((doc.components.schemas["NameRecord"]!["required"] as string[]).slice(0, 20)).toEqual(props("NameRecord").slice(0, 20));
    expect(doc.components.schemas["Trigger"]).toMatchObject({ enum: ["breakout", "pullback"] });
    expect(props("NameSetup")).toEqual(expect.arrayContaining(["permitted", "refusal", "trigger", "trigger_date", "days_in_state"]));
    expect(doc.components.schemas["SetupRefusal"]!["enum"]).toEqual(expect.arrayContaining(["state_falling", "not_permitted_by_regime", "hold_exit"]));
  });

  it("adds the optional tier block to the bodies of reads the free tiers make", () => {
    const schema = component(op("/api/board/regime").responses["200"]!.content!["application/json"]!.schema["$ref"] as string) as { properties: Record<string, unknown>; required: string[] };
    expect(schema.properties["tier"]).toEqual({ $ref: "#/components/schemas/TierBlock" });
    expect(schema.required).not.toContain("tier");
    const paidOnly = component(op("/api/board/buylist").responses["200"]!.content!["application/json"]!.schema["$ref"] as string) as { properties: Record<string, unknown> };
    expect(paidOnly.properties["tier"]).toBeUndefined();
  });

  it("picks up a view when a route gets one, and documents a route without one generically", () => {
    const live = ROUTES.find((r) => r.kind === "live")!;
    const without: Route = { ...live, view: null };
    const bare = openApiDocument(base, ROUTES.map((r) => (r === live ? without : r))) as unknown as Doc;
    const generic = bare.paths[live.path]!["get"]!.responses["200"]!.content!["application/json"]!.schema;
    expect(generic["$ref"]).toBeUndefined();
    expect(generic["type"]).toBe("object");
    const withView: Route = { ...live, view: "status" };
    const viewed = openApiDocument(base, ROUTES.map((r) => (r === live ? withView : r))) as unknown as Doc;
    expect(viewed.paths[live.path]!["get"]!.responses["200"]!.content!["application/json"]!.schema).toEqual({ $ref: "#/components/schemas/BoardStatus" });
  });

  it("lists every error a paid read can give, each code under the status it rides on", () => {
    const regime = op("/api/board/regime").responses;
    expect(Object.keys(regime)).toEqual(expect.arrayContaining(["200", "401", "402", "403", "429", "500", "501", "502", "503", "504"]));
    // sign_in_limit: a SIGN-IN-WITH-X header of a wallet new to the client address past its hourly sign-ins.
    expect(codesOf(regime["429"]!)).toEqual(["daily_cap_reached", "sign_in_limit", "burst_limited"]);
    expect(Object.keys(regime["429"]!.headers ?? {})).toEqual(expect.arrayContaining(["Retry-After", "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"]));
    expect(codesOf(op("/api/board/buylist").responses["429"]!)).toEqual(["burst_limited"]);
    // New free keys and wallet sign-ins per client address an hour, with Retry-After.
    expect(codesOf(op("/api/key", "post").responses["429"]!)).toEqual(["burst_limited", "key_issue_limit"]);
    expect(codesOf(op("/api/auth/verify", "post").responses["429"]!)).toEqual(["burst_limited", "sign_in_limit"]);
    expect(Object.keys(op("/api/key", "post").responses["429"]!.headers ?? {})).toContain("Retry-After");
    expect(regime["402"]!.content!["application/json"]!.schema).toEqual({ $ref: "#/components/schemas/PaymentRequiredBody" });
    expect(regime["402"]!.content!["application/problem+json"]!.schema).toEqual({ $ref: "#/components/schemas/MppProblem" });
    expect(Object.keys(regime["402"]!.headers ?? {})).toEqual(["PAYMENT-REQUIRED", "WWW-Authenticate"]);
    for (const code of ErrorCode.options.filter((c) => c.startsWith("payment_"))) expect(regime["402"]!.description).toContain(code);
    expect(Object.keys(regime["200"]!.headers ?? {})).toEqual(expect.arrayContaining(["PAYMENT-RESPONSE", "X-Board-Market-Open", "X-Board-Next-Refresh", "X-Board-Data-Age"]));

    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, o] of Object.entries(item)) {
        for (const [status, r] of Object.entries(o.responses)) {
          for (const code of codesOf(r)) {
            const expected = path === "/api/auth/verify" && (code === "sign_in_invalid" || code === "sign_in_expired") ? 401 : ERROR_STATUS[code as ErrorCode];
            expect(`${method} ${path} ${code} ${status}`).toBe(`${method} ${path} ${code} ${expected}`);
          }
        }
      }
    }
  });

  it("describes every header credential as a security scheme, and which open each route", () => {
    const s = doc.components.securitySchemes;
    expect(s["freeKey"]).toMatchObject({ type: "apiKey", in: "header", name: "X-Board-Key" });
    expect(s["signInWithX"]).toMatchObject({ type: "apiKey", in: "header", name: "SIGN-IN-WITH-X" });
    expect(s["licenseKey"]).toMatchObject({ type: "apiKey", in: "header", name: "X-License-Key" });
    expect(s["x402Payment"]).toMatchObject({ type: "apiKey", in: "header", name: "PAYMENT-SIGNATURE" });
    expect(s["x402PaymentV1"]).toMatchObject({ type: "apiKey", in: "header", name: "X-PAYMENT" });
    expect(s["bearer"]).toMatchObject({ type: "http", scheme: "bearer", bearerFormat: "JWT" });
    expect(s["mppPayment"]).toMatchObject({ type: "http", scheme: "Payment" });
    const schemes = (path: string) => op(path).security.flatMap((alt) => Object.keys(alt));
    expect(schemes("/api/board/regime")).toEqual(expect.arrayContaining(["freeKey", "signInWithX", "licenseKey", "bearer", "x402Payment", "mppPayment"]));
    expect(schemes("/api/board/buylist")).not.toContain("freeKey");
    expect(schemes("/api/live/feed").sort()).toEqual(["bearer", "licenseKey"]);
    expect(op("/api/board/free").security).toEqual([]);
  });

  it("gives each paid read its price in x-payment-info (as mppx's discovery reads it) and its x402 offers", () => {
    expect(validateDiscovery(doc)).toEqual([]);
    for (const route of PAID_ROUTES) {
      const o = op(route.path);
      const info = PaymentInfo.parse(o["x-payment-info"]);
      expect(info.offers).toEqual([expect.objectContaining({ amount: String(route.price), method: "usdc", intent: "charge" })]);
      expect(o["x-x402"]?.accepts.map((a) => a.network)).toEqual(RAILS.map((r) => r.network));
      for (const offer of o["x-x402"]!.accepts) expect(offer.amount).toBe(String(route.price));
    }
    const unpaid = Object.entries(doc.paths).filter(([path]) => !PAID_ROUTES.some((r) => r.path === path));
    for (const [, item] of unpaid) for (const o of Object.values(item)) expect(o["x-payment-info"]).toBeUndefined();
  });

  it("states the burst limit and the free tier from proto's constants", () => {
    expect(doc.info.description).toContain("20 requests per principal");
    expect(doc.info.description).toContain("refilled at 10 per second");
    expect(doc.info.description).toContain("40 per client address");
    expect(doc.info.description).toContain("25 reads a day");
    expect((doc as unknown as Record<string, unknown>)["x-limits"]).toMatchObject({
      burst: { principal: { capacity: 20, per_second: 10 }, client_address: { capacity: 40, per_second: 20 } },
      free_tier: { reads_per_day: 25 },
    });
  });

  it("declares HEAD where the catalogue does, and bodies nowhere on it", () => {
    const head = op("/.well-known/api-catalog", "head");
    for (const r of Object.values(head.responses)) expect(r.content).toBeUndefined();
    expect(Object.keys(head.responses["200"]!.headers ?? {})).toContain("Link");
  });

  it("describes the event stream: a text/event-stream 200 whose events carry a BoardPublishedEvent, Last-Event-ID, and the caps' refusals", () => {
    const events = op(BOARD_EVENTS_PATH);
    const ok = events.responses["200"]!;
    expect(Object.keys(ok.content ?? {})).toEqual(["text/event-stream"]);
    const item = ok.content!["text/event-stream"]!.schema as { properties: { id: unknown; data: { $ref: string } }; required: string[] };
    expect(item.properties.data.$ref).toBe("#/components/schemas/BoardPublishedEvent");
    expect(item.required).toEqual(["id", "data"]);
    expect(Object.keys(doc.components.schemas["BoardPublishedEvent"]!["properties"] as object)).toEqual(Object.keys(BoardPublishedEvent.shape));
    expect(Object.keys(ok.headers ?? {})).toEqual(expect.arrayContaining(["Cache-Control", "X-Accel-Buffering"]));
    // Not a board read: no ETag, no 304, no freshness headers; refused at its caps.
    expect(events.responses["304"]).toBeUndefined();
    expect(codesOf(events.responses["429"]!)).toEqual(["too_many_streams", "burst_limited"]);
    expect(codesOf(events.responses["503"]!)).toEqual(expect.arrayContaining(["streams_at_capacity", "service_unavailable"]));
    expect(doc.info.description).toContain(BOARD_EVENTS_PATH);
  });

  it("uses unique operation ids and defines every $ref it makes", () => {
    const ids = Object.values(doc.paths).flatMap((item) => Object.values(item).map((o) => o.operationId));
    expect(new Set(ids).size).toBe(ids.length);
    const refs = JSON.stringify(doc).match(/"\$ref":"[^"]+"/g) ?? [];
    for (const r of new Set(refs)) expect(component(JSON.parse(`{${r}}`).$ref), r).toBeDefined();
  });
});
