/**
 * Redirect URIs a client may register: https anywhere, or http on the loopback interface
 * (RFC 8252 7.3, native apps and MCP hosts on the user's machine). No fragment, no user
 * information. Anything else (plain http to a host, custom schemes) is refused.
 */
const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(["127.0.0.1", "[::1]", "localhost"]);

const parse = (uri: string): URL | null => {
  try {
    return new URL(uri);
  } catch {
    return null;
  }
};

const isLoopback = (url: URL) => url.protocol === "http:" && LOOPBACK_HOSTS.has(url.hostname);

/** Why a URI cannot be registered as a redirect URI, or null when it can. */
export function redirectUriProblem(uri: string): string | null {
  const url = parse(uri);
  if (!url) return "every redirect URI must be an absolute URL";
  if (uri.includes("#")) return "a redirect URI must not have a fragment";
  if (url.username || url.password) return "a redirect URI must not carry user information";
  if (url.protocol === "https:" || isLoopback(url)) return null;
  return "redirect URIs must be https, or http on a loopback address (127.0.0.1, [::1] or localhost)";
}

/**
 * Whether the URI an authorization request names is one the client registered: exactly,
 * except that a loopback URI matches on any port, since a native app listens where the
 * system lets it (RFC 8252 7.3).
 */
export function redirectUriRegistered(registered: readonly string[], presented: string): boolean {
  if (registered.includes(presented)) return true;
  const p = parse(presented);
  if (!p || !isLoopback(p) || presented.includes("#")) return false;
  return registered.some((r) => {
    const u = parse(r);
    return u !== null && isLoopback(u) && u.hostname === p.hostname && u.pathname === p.pathname && u.search === p.search;
  });
}
