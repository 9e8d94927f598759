import { neededParams, type Route } from "./catalogue.js";

/**
 * Example values of the query parameters a paid read needs (neededParams), each one the route
 * accepts: what listings of the paid resources put in a resource's URL, so a directory that
 * probes the URL meets the route's 402 rather than a refused query, and the query a 402's bazaar
 * declaration gives as its example (a declaration's info must satisfy its own schema).
 */
export const SELLING_QUERY_EXAMPLES: Readonly<Record<string, string>> = {
  sym: "AAPL,MSFT",
  date: "2026-11-20",
  // A content hash's shape: a buyer takes a real one from /api/board/state, the event feed or a receipt.
  since: "5f0c6e9d3b1a4c2e8d7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d",
};

/** The query that sells a paid route's read: its needed parameters with their examples (throws where one has none or it does not parse). */
export function sellingQuery(route: Route): Record<string, string> {
  const query = Object.fromEntries(
    neededParams(route).map((param) => {
      const value = SELLING_QUERY_EXAMPLES[param];
      if (value === undefined) throw new Error(`${route.path}: no example value for its query parameter ${param}`);
      return [param, value];
    }),
  );
  const parsed = route.query.safeParse(query);
  if (!parsed.success) throw new Error(`${route.path}: the example query does not parse: ${parsed.error.message}`);
  return query;
}

/** The URL of a paid resource as listings give it: the route with its selling query. */
export function sellingUrl(route: Route, base: URL): string {
  // Written as a client sends it (sym=AAPL,MSFT): the examples need no escaping.
  const query = Object.entries(sellingQuery(route)).map(([k, v]) => `${k}=${v}`);
  return `${new URL(route.path, base.origin).toString()}${query.length > 0 ? `?${query.join("&")}` : ""}`;
}
