import { AuthorizeRequest, ConsentRequest, identityAuthorize, identityConsent, type AuthorizeReply, type ConsentReply } from "@board/proto";
import { request } from "@board/service-kit";
import type { Request, Response } from "express";
import { authorizeErrorPage, consentCsp, consentPage } from "../consent/page.js";
import { MAX_FORM_BYTES, readForm, readParams } from "../http/bodies.js";
import { sendUpstreamError } from "../http/errors.js";
import { withinAnonymousBurst, type ReadDeps } from "../reads/read.js";

const QUERY_FIELDS = ["response_type", "client_id", "redirect_uri", "scope", "state", "code_challenge", "code_challenge_method"] as const;

/** A page of the sign-in: never cached, never framed, nothing loaded but its own style. */
function sendPage(res: Response, status: number, body: string, redirectOrigin: string | null): void {
  res
    .status(status)
    .setHeader("Content-Type", "text/html; charset=utf-8")
    .setHeader("Content-Security-Policy", consentCsp(redirectOrigin))
    .setHeader("X-Content-Type-Options", "nosniff")
    .setHeader("X-Frame-Options", "DENY")
    .setHeader("Referrer-Policy", "no-referrer")
    .setHeader("Cache-Control", "no-store")
    .send(body);
}

/** To the client's redirect URI: the code or the error, with state and iss. */
function sendRedirect(res: Response, location: string): void {
  res.status(302).setHeader("Location", location).setHeader("Cache-Control", "no-store").setHeader("Referrer-Policy", "no-referrer").end();
}

function readAuthorizeQuery(url: string): AuthorizeRequest {
  const q = url.indexOf("?");
  const params = readParams(q < 0 ? "" : url.slice(q + 1), ["resource"]);
  if (!params.ok) return { malformed: params.message };
  const read: AuthorizeRequest = {
    ...Object.fromEntries(QUERY_FIELDS.flatMap((f) => (params.value.one[f] !== undefined ? [[f, params.value.one[f]]] : []))),
    ...(params.value.many.resource ? { resource: params.value.many.resource } : {}),
  };
  return AuthorizeRequest.safeParse(read).success ? read : { malformed: "A parameter of the authorization request is too long, or there are too many resources." };
}

/**
 * GET /oauth/authorize: identity checks the request; the holder sees the consent page, the
 * client gets its error at its redirect URI, or, when the client or its redirect URI cannot
 * be trusted, the person is told and nothing is redirected.
 */
export async function getAuthorize(deps: ReadDeps, req: Request, res: Response): Promise<void> {
  const query = readAuthorizeQuery(req.url);
  let reply: AuthorizeReply;
  try {
    reply = await request(deps.nc, identityAuthorize, query, { timeoutMs: deps.timeoutMs });
  } catch (err) {
    return sendUpstreamError(res, err);
  }
  if (reply.ok) return sendPage(res, 200, consentPage(reply.prompt), reply.prompt.redirect_origin);
  if (reply.redirect && redirectable(query, reply.redirect)) return sendRedirect(res, reply.redirect);
  sendPage(res, 400, authorizeErrorPage(reply.error, reply.error_description), null);
}

/**
 * A second check of identity's answer before the board's origin redirects anywhere (RFC 9700
 * 4.11.2): an error goes back only for a well-formed code request, to the redirect URI it named.
 */
function redirectable(query: AuthorizeRequest, location: string): boolean {
  if (query.malformed !== undefined || query.response_type !== "code" || !query.client_id || !query.redirect_uri) return false;
  try {
    const to = new URL(location);
    const named = new URL(query.redirect_uri);
    return to.origin === named.origin && to.pathname === named.pathname;
  } catch {
    return false;
  }
}

/**
 * A form posted from another site is refused: browsers name the form's origin (Origin, and
 * Sec-Fetch-Site), and no page of ours posts here but the consent page. A client that names
 * no origin (not a browser) is let through; the sealed request still binds what it approves.
 */
function crossSite(deps: ReadDeps, req: Request): boolean {
  const origin = req.headers.origin;
  if (origin !== undefined && origin !== deps.publicBaseUrl.origin) return true;
  const site = req.headers["sec-fetch-site"];
  return site !== undefined && site !== "same-origin" && site !== "none";
}

/** POST /oauth/authorize: the consent form. The license key is read from the body, passed to identity and dropped. */
export async function postAuthorize(deps: ReadDeps, req: Request, res: Response): Promise<void> {
  if (crossSite(deps, req)) return sendPage(res, 403, authorizeErrorPage("access_denied", "this form was posted from another site"), null);
  if (!(await withinAnonymousBurst(deps, req, res))) return;
  const form = await readForm(req, { maxBytes: MAX_FORM_BYTES, what: "consent form" });
  if (!form.ok) return sendPage(res, 400, authorizeErrorPage("invalid_request", form.message), null);
  const { request: sealed, decision, license_key } = form.value.one;
  const consent = ConsentRequest.safeParse({ request: sealed, decision, ...(license_key ? { license_key } : {}) });
  if (!consent.success) return sendPage(res, 400, authorizeErrorPage("invalid_request", "The form is incomplete. Start again from the application."), null);
  let reply: ConsentReply;
  try {
    reply = await request(deps.nc, identityConsent, consent.data, { timeoutMs: deps.timeoutMs });
  } catch (err) {
    return sendUpstreamError(res, err);
  }
  if (reply.ok) return sendRedirect(res, reply.redirect);
  if (reply.prompt) return sendPage(res, 400, consentPage(reply.prompt, reply.message), reply.prompt.redirect_origin);
  sendPage(res, 400, authorizeErrorPage("invalid_request", reply.message), null);
}
