import type { ServerResponse } from "node:http";
import { DEPRECATION_HEADER, deprecationHeaders, SUNSET_HEADER, type Route } from "@board/proto";

/**
 * A deprecated route's headers (docs/versioning.md), set on the response before the route
 * answers, so every answer of it carries them: the read, its 402, a refusal, a 405. The Link
 * to the notice is added beside any Link already set.
 */
export function setDeprecationHeaders(route: Route, res: ServerResponse, base: URL): void {
  if (!route.deprecation) return;
  const h = deprecationHeaders(route.deprecation, base);
  res.setHeader(DEPRECATION_HEADER, h.deprecation);
  res.setHeader(SUNSET_HEADER, h.sunset);
  res.appendHeader("Link", h.link);
}
