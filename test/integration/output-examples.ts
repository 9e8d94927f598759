import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { identityLicenseIssue, PAID_ROUTES, type Route } from "@board/proto";
import { request } from "@board/service-kit";
import type { Stack } from "./harness.js";

/**
 * The bazaar listing's output examples (proto/src/routes/output-examples.ts),
 * made from a served board: the fixture boards the integration stack publishes, each paid
 * route read through the gateway on a scanner licence as a buyer reads it, then abridged
 * (every list cut to its first entry) so a listing stays small. Written by
 * `WRITE_OUTPUT_EXAMPLES=1 npx vitest run --project integration test/integration/output-examples.test.ts`.
 */
export const OUTPUT_EXAMPLES_FILE = fileURLToPath(new URL("../../proto/src/routes/output-examples.ts", import.meta.url));

/** Longer strings are cut: an example shows the shape and real values, not whole texts. */
const MAX_STRING = 240;

export function abridged(value: unknown): unknown {
  if (Array.isArray(value)) return value.slice(0, 1).map(abridged);
  if (typeof value === "string") return value.length > MAX_STRING ? `${value.slice(0, MAX_STRING)}…` : value;
  if (typeof value === "object" && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, abridged(v)]));
  return value;
}

/** Each paid route's read of the stack's board, abridged, by path. */
export async function servedExamples(stack: Stack): Promise<Record<string, unknown>> {
  const licence = await request(stack.nc, identityLicenseIssue, { kind: "scanner", period: "monthly", holder: "output examples" }, { timeoutMs: 5000 });
  const read = async (route: Route): Promise<unknown> => {
    const q = new URLSearchParams(stack.sellingQuery(route)).toString();
    for (;;) {
      const res = await fetch(`${stack.base}${route.path}${q ? `?${q}` : ""}`, { headers: { "x-license-key": licence.key } });
      // The licence's burst: wait as told, then read again.
      if (res.status === 429) {
        await new Promise((r) => setTimeout(r, 1000 * Number(res.headers.get("retry-after") ?? 1)));
        continue;
      }
      if (res.status !== 200) throw new Error(`${route.path}: ${res.status} ${await res.text()}`);
      return abridged(await res.json());
    }
  };
  const examples: Record<string, unknown> = {};
  for (const route of PAID_ROUTES) examples[route.path] = await read(route);
  return examples;
}

export function writeOutputExamples(examples: Record<string, unknown>): void {
  const text =
    "// Generated from a served board by test/integration/output-examples.ts: do not edit.\n" +
    "// Each paid route's read of the integration stack's fixture board (a licensed read, as served), every list cut to its first entry.\n\n" +
    `/** The bazaar listing's output example per paid route path. */\nexport const OUTPUT_EXAMPLES: Readonly<Record<string, unknown>> = ${JSON.stringify(examples, null, 2)};\n`;
  writeFileSync(OUTPUT_EXAMPLES_FILE, text);
}
