import { OAuthResource, oauthResourceUrl } from "@board/proto";

export type ResourcesRead = { ok: true; resources: OAuthResource[] | null } | { ok: false; description: string };

/** A URL as compared here: origin and path without a trailing slash; null when it has a query or fragment (RFC 8707 2). */
function comparable(uri: string): string | null {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return null;
  }
  if (url.search || url.hash || uri.includes("#")) return null;
  return `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
}

/**
 * RFC 8707 resource indicators to the resources we serve; null when none was given. An
 * indicator that is not one of ours is invalid_target, named in fixed words.
 */
export function readResources(indicators: readonly string[] | undefined, issuer: string): ResourcesRead {
  if (!indicators || indicators.length === 0) return { ok: true, resources: null };
  const ours = new Map(OAuthResource.options.map((r) => [comparable(oauthResourceUrl(issuer, r)), r] as const));
  const found: OAuthResource[] = [];
  for (const indicator of indicators) {
    const r = ours.get(comparable(indicator));
    if (!r) return { ok: false, description: `the resources here are ${OAuthResource.options.map((o) => oauthResourceUrl(issuer, o)).join(" and ")}` };
    if (!found.includes(r)) found.push(r);
  }
  return { ok: true, resources: found };
}
