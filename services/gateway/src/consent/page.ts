import type { ConsentPrompt, OAuthResource } from "@board/proto";
import { html, trusted, type Html } from "../http/html.js";
import { CONSENT_STYLE, CONSENT_STYLE_HASH } from "./style.js";

const RESOURCE_WORDS: Record<OAuthResource, string> = {
  api: "the live reads over HTTP (/api/board/*, /api/live/*)",
  mcp_live: "the live tier's MCP server (/mcp/live: get_engine_feed, get_live_rules, get_live_setup)",
};

/**
 * The page's policy: nothing loads but its hashed style sheet, no script, no frame around it.
 * The form may post here and be redirected on to the client's redirect URI, whose origin is
 * named too, because browsers check the form's redirect against form-action.
 */
export function consentCsp(redirectOrigin: string | null): string {
  return [
    "default-src 'none'",
    `style-src ${CONSENT_STYLE_HASH}`,
    "base-uri 'none'",
    redirectOrigin ? `form-action 'self' ${redirectOrigin}` : "form-action 'none'",
    "frame-ancestors 'none'",
  ].join("; ");
}

function layout(title: string, body: Html): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${title}</title>
<style>${trusted(CONSENT_STYLE)}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`.markup;
}

/**
 * The consent page: who asks (the client's own name, and where the answer goes, which it
 * cannot fake), for what, and a form for the license key. The key is posted in the body,
 * never put in the URL; the hidden field binds the form to this one authorization request.
 */
export function consentPage(prompt: ConsentPrompt, error?: string): string {
  const who = prompt.client_name ?? "An application";
  return layout(
    "Sign in with your license",
    html`<h1>Sign in with your license</h1>
${error ? html`<p class="error" role="alert">${error}</p>` : null}
<p><strong>${who}</strong> asks to read ${prompt.resources.map((r, i) => html`${i > 0 ? " and " : ""}${RESOURCE_WORDS[r]}`)} on your behalf (scope <code>${prompt.scope}</code>).</p>
<p class="muted">The name is the application's own claim. Its answer goes to <code>${prompt.redirect_origin}</code>; allow only if that is the application you are using. Client id <code>${prompt.client_id}</code>.</p>
<form method="post" action="/oauth/authorize">
<input type="hidden" name="request" value="${prompt.request}">
<label for="license_key">License key</label>
<input type="password" id="license_key" name="license_key" autocomplete="off" spellcheck="false" required>
<p class="muted">A live-feed license key for the live tier. It is checked here and never given to the application: the application gets a token that lapses with your license.</p>
<div class="actions">
<button class="allow" type="submit" name="decision" value="approve">Allow</button>
<button type="submit" name="decision" value="deny" formnovalidate>Deny</button>
</div>
</form>
<p class="muted">This page expires at ${prompt.expires_at}.</p>`,
  );
}

/** An authorization request that cannot go back to its client (unknown client, unregistered redirect URI): the person is told. */
export function authorizeErrorPage(error: string, description: string): string {
  return layout(
    "Sign-in refused",
    html`<h1>Sign-in refused</h1>
<p class="error" role="alert"><code>${error}</code>: ${description}</p>
<p class="muted">Nothing was sent to the application. Start again from the application, or see <a href="/llms.txt">/llms.txt</a>.</p>`,
  );
}
