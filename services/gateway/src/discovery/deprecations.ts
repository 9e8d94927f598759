import type { Route, RouteDeprecation } from "@board/proto";

/** A deprecated route in words, as OpenAPI's descriptions and /llms.txt give it (docs/versioning.md). */
export function deprecationWords(d: RouteDeprecation, base?: URL): string {
  const notice = base ? new URL(d.link, base.origin).toString() : d.link;
  return (
    `Deprecated since ${d.since}; it may stop answering after ${d.sunset} (its answers carry Deprecation, Sunset and Link rel="deprecation"). ` +
    `Notice: ${notice}.`
  );
}

/** /llms.txt's lines for the deprecated routes: empty while none is. */
export function deprecatedRouteLines(routes: readonly Route[], base: URL): string[] {
  return routes.filter((r) => r.deprecation).map((r) => `- [${r.path}](${new URL(r.path, base.origin).toString()}): ${deprecationWords(r.deprecation!, base)}`);
}
