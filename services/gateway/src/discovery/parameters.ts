import { BOARD_EVENTS_PATH, MAX_BATCH, type Route } from "@board/proto";
import { z } from "zod";
import { pascal } from "./refs.js";
import { inlineSchema } from "./schemas.js";

/** What each query parameter means (the schema comes from the route's own query schema). */
const PARAMETER_NOTES: Record<string, string> = {
  preview: "Only the value 1: the free preview, same schema as the full board, previous trading day, top 3 names per book. No payment, no call cap.",
  sym:
    `One ticker, or up to ${MAX_BATCH} comma-separated (AAPL,MSFT), upper-cased and trimmed. ` +
    `The parameter repeated (sym=AAPL&sym=MSFT), or both forms at once, is read as the same list: at most ${MAX_BATCH} symbols in all, the same price.`,
  name: "A sector label, case-insensitive, one of the 20 sector groups. An unknown value returns the sector directory (200).",
  etf: "Or the sector's ETF symbol. An unknown value returns the sector directory (200).",
  sample: "Only the value 1: one complete committed sample day of scores.",
  address: "The wallet address that will sign.",
  chain: "The CAIP-2 chain it signs on: eip155:8453, solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp or algorand:wGHE2Pwdvd7S12BL5FaOP20EGYesN73k.",
};

/** Request headers a route reads as its parameters (the credential headers are security schemes instead). */
const HEADER_PARAMETERS: Record<string, readonly Record<string, unknown>[]> = {
  [BOARD_EVENTS_PATH]: [
    {
      name: "Last-Event-ID",
      in: "header",
      required: false,
      description:
        "The id of the last event the client received (EventSource sends it when it reconnects): the stream starts with the boards published since, " +
        "or with the newest board alone when that id is older than the replica's ring. Absent or not a number: the newest board.",
      schema: { type: "string", pattern: "^\\d+$" },
    },
  ],
};

/** Query parameters (and the headers a route reads), declared once each in components/parameters; routes refer to them. */
export function parameterComponents(routes: readonly Route[]): { components: Record<string, unknown>; refs: Map<Route, string[]> } {
  const components: Record<string, unknown> = {};
  const byContent = new Map<string, string>();
  const refs = new Map<Route, string[]>();
  for (const route of routes) {
    const names: string[] = [];
    for (const [param, field] of Object.entries(route.query.shape) as [string, z.ZodType][]) {
      const optional = field instanceof z.ZodOptional;
      const schema = inlineSchema(optional ? (field.unwrap() as z.ZodType) : field, "output");
      const parameter = {
        name: param,
        in: "query",
        required: !optional,
        description: PARAMETER_NOTES[param] ?? field.description ?? param,
        schema,
        // One declared style, the comma list (sym=AAPL,MSFT); the repeated form that generators
        // send when they ignore style is accepted too (proto's SymList), and said so in the description.
        ...(schema["type"] === "array" ? { style: "form", explode: false } : {}),
      };
      const content = JSON.stringify(parameter);
      let key = byContent.get(content);
      if (key === undefined) {
        key = param in components ? `${param}.${pascal(route.path)}` : param;
        components[key] = parameter;
        byContent.set(content, key);
      }
      names.push(key);
    }
    for (const parameter of HEADER_PARAMETERS[route.path] ?? []) {
      const key = String(parameter["name"]);
      components[key] = parameter;
      names.push(key);
    }
    refs.set(route, names);
  }
  return { components, refs };
}
