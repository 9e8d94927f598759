import { OUTPUT_EXAMPLES, PAID_ROUTES, VIEW_SCHEMAS } from "@board/proto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WRITE_OUTPUT_EXAMPLES } from "./env.js";
import { Stack } from "./harness.js";
import { servedExamples, writeOutputExamples } from "./output-examples.js";

// The listing's output examples are a served board's reads, not placeholders: the committed
// file is what the stack's board serves today (its freshness block and commit times aside, which
// are the time of the run).

const stack = new Stack();
let served: Record<string, unknown>;

beforeAll(async () => {
  await stack.start();
  await stack.startBoard();
  await stack.publishTwoDays();
  await stack.untilServing();
  served = await servedExamples(stack);
  if (WRITE_OUTPUT_EXAMPLES) writeOutputExamples(served);
}, 90_000);
afterAll(() => stack.stop());

/** An example without what is the time of the run (the freshness block, when the stack committed a board). */
function withoutFreshness(example: unknown): unknown {
  if (Array.isArray(example)) return example.map(withoutFreshness);
  if (typeof example !== "object" || example === null) return example;
  return Object.fromEntries(Object.entries(example).filter(([k]) => k !== "freshness" && k !== "committed_at").map(([k, v]) => [k, withoutFreshness(v)]));
}

describe("the bazaar listing's output examples", () => {
  it.each(PAID_ROUTES.map((r) => [r.path, r] as const))("%s: the served board's read, abridged, and a body of its view", (path, route) => {
    const committed = OUTPUT_EXAMPLES[path];
    expect(committed, `${path}: regenerate with WRITE_OUTPUT_EXAMPLES=1`).toBeDefined();
    expect(withoutFreshness(committed)).toEqual(withoutFreshness(served[path]));
    // Cut to one entry per list, it is still a body of the route's view.
    expect(VIEW_SCHEMAS[route.view!].safeParse(committed).success, path).toBe(true);
  });

  it("is kept for paid routes only", () => {
    expect(Object.keys(OUTPUT_EXAMPLES).sort()).toEqual(PAID_ROUTES.map((r) => r.path).sort());
  });
});
