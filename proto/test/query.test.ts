import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ROUTES, type Route } from "../src/routes/catalogue.js";
import { MAX_BATCH, SymList } from "../src/routes/query.js";

/** Each route's query parameters, split into lists (an array once parsed) and single values. */
const params = (route: Route) =>
  (Object.entries(route.query.shape) as [string, z.ZodType][]).map(([name, field]) => {
    const schema = z.toJSONSchema(field instanceof z.ZodOptional ? (field.unwrap() as z.ZodType) : field, { io: "output" }) as { type?: string };
    return { name, list: schema.type === "array" };
  });
const LISTS = ROUTES.flatMap((route) => params(route).filter((p) => p.list).map((p) => [`${route.path} ${p.name}`, route, p.name] as const));
const SINGLES = ROUTES.flatMap((route) => params(route).filter((p) => !p.list).map((p) => [`${route.path} ${p.name}`, route, p.name] as const));

const eleven = Array.from({ length: MAX_BATCH + 1 }, (_, i) => `S${i}`);
const issueOf = (route: Route, query: Record<string, unknown>, param: string) => {
  const parsed = route.query.safeParse(query);
  return parsed.success ? null : (parsed.error.issues.find((i) => i.path[0] === param)?.message ?? null);
};
const valueOf = (route: Route, query: Record<string, unknown>, param: string) => (route.query.safeParse(query).data as Record<string, unknown> | undefined)?.[param];

describe("list parameters: the comma list and the repeated parameter are one request", () => {
  it("finds the list parameters: sym, wherever a route takes it", () => {
    expect(LISTS.map(([label]) => label)).toEqual(["/api/board/name sym", "/api/board/hold sym", "/api/board/name/history sym", "/api/live/setup sym"]);
  });

  it.each(LISTS)("%s: sym=a&sym=b reads as sym=a,b, upper-cased and trimmed", (_label, route, param) => {
    const comma = valueOf(route, { [param]: " aapl,msft " }, param);
    expect(comma).toEqual(["AAPL", "MSFT"]);
    expect(valueOf(route, { [param]: [" aapl", "msft "] }, param)).toEqual(comma);
    // Empty items are dropped in either form.
    expect(valueOf(route, { [param]: ["aapl", "", "msft,"] }, param)).toEqual(comma);
  });

  it.each(LISTS)("%s: mixed forms are their union in order, duplicates kept for the count", (_label, route, param) => {
    expect(valueOf(route, { [param]: ["aapl,msft", "nvda"] }, param)).toEqual(["AAPL", "MSFT", "NVDA"]);
    expect(valueOf(route, { [param]: ["AAPL", "aapl,MSFT"] }, param)).toEqual(["AAPL", "AAPL", "MSFT"]);
  });

  it.each(LISTS)("%s: more than ten is the same refusal however it is spelled", (_label, route, param) => {
    const refusal = `at most ${MAX_BATCH} symbols per read`;
    expect(issueOf(route, { [param]: eleven.join(",") }, param)).toBe(refusal);
    expect(issueOf(route, { [param]: eleven }, param)).toBe(refusal);
    expect(issueOf(route, { [param]: [eleven.slice(0, 5).join(","), ...eleven.slice(5)] }, param)).toBe(refusal);
    // Ten in all passes, and ten of one symbol counts as ten.
    expect(issueOf(route, { [param]: eleven.slice(0, MAX_BATCH) }, param)).toBeNull();
    expect(issueOf(route, { [param]: Array.from({ length: MAX_BATCH + 1 }, () => "AAPL") }, param)).toBe(refusal);
  });

  it.each(LISTS)("%s: nothing given is refused the same in either form; other shapes are not strings", (_label, route, param) => {
    const empty = "give one to ten symbols, comma-separated or repeated";
    expect(issueOf(route, { [param]: "" }, param)).toBe(empty);
    expect(issueOf(route, { [param]: ["", " , "] }, param)).toBe(empty);
    expect(issueOf(route, { [param]: { a: "1" } }, param)).toBe("must be a string");
    expect(issueOf(route, { [param]: ["AAPL", 1] }, param)).toBe("must be a string");
    expect(issueOf(route, { [param]: ["x".repeat(17)] }, param)).toBe("each symbol is at most 16 characters");
  });

  it("SymList requires a value where a route requires it", () => {
    expect(z.object({ sym: SymList }).safeParse({}).error?.issues[0]?.message).toBe("is required");
  });
});

describe("single-valued parameters", () => {
  it.each(SINGLES)("%s given twice is refused: must be given once", (_label, route, param) => {
    expect(issueOf(route, { [param]: ["1", "1"] }, param)).toBe("must be given once");
  });
});
