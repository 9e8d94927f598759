import type { ConsumeReply, Principal, Route, ViewName } from "@board/proto";
import type { Request, Response } from "express";
import type { CountedWallets } from "../access/counted-wallets.js";
import { credentialsOf } from "../access/credentials.js";
import { addressBurstKey, consume, refund, type BurstFailure } from "../access/meter.js";
import { entitles, isFreeTier, resolveAccess, type Access } from "../access/principal.js";
import { setDailyHeaders, tierBlock, withTierBlock } from "../access/tier-block.js";
import { busTurn } from "../http/bus-turn.js";
import { clientOf } from "../http/client-address.js";
import type { Exchange } from "../http/exchange.js";
import { readBoardView, sendBoardView, wholeBody, type ServedView } from "./board-view.js";
import { sendError, sendUpstreamError } from "../http/errors.js";
import { withinNewCredentialLimit } from "./new-credentials.js";
import { paymentOf, servePaidRead, type PaidReadDeps } from "./paid-read.js";
import { sendPaymentRequired } from "./payment-required.js";

export interface ReadDeps extends PaidReadDeps {
  publicBaseUrl: URL;
  /** Wallets metering counted for an address, until their count ends; none: every signed read asks metering. */
  countedWallets?: CountedWallets;
}

/**
 * Every board read, free, paid or live (DESIGN.md "A paid read, end to end"): credentials
 * first (identity), then the count (metering), then the board; a payment where no credential
 * entitles the read. Free reads are everyone's: credentials change nothing there.
 */
export async function serveRead(
  deps: ReadDeps,
  x: Exchange,
  route: Route,
  view: ViewName | null,
  params: Record<string, string>,
  free: boolean,
): Promise<void> {
  // HEAD answers headers only: it never takes a payment and never spends a counted read.
  const creds = free || x.req.method !== "GET" ? null : credentialsOf(x.req);
  const payment = !free && route.kind === "paid" && x.req.method === "GET" && paymentOf(x.req) !== null;
  // A credential or a payment spends the client address's burst first, before identity or
  // payments (a database lookup, a signature check, a claim) is asked anything, and fails
  // closed: a flood of junk keys or payments meets 429 here, not the services behind.
  if (creds || payment) {
    if (!(await withinBurstOf(deps, x.client(), () => x.express().res, "closed"))) return;
  }
  if (creds) {
    let access: Access;
    try {
      access = await resolveAccess(deps.nc, deps.timeoutMs, creds, deps.principals, "api", deps.refused);
    } catch (err) {
      return sendUpstreamError(x.express().res, err);
    }
    if (access.kind === "refused") return sendCredentialRefusal(deps, x.express().req, x.express().res, route, access);
    const { principal } = access;
    if (entitles(route, principal)) {
      // A wallet signed in by header counts toward its client address's new sign-ins (once an hour per wallet).
      if (creds.siwx !== undefined && principal.tier === "wallet") {
        const { req, res } = x.express();
        if (!(await withinNewCredentialLimit(deps, req, res, { kind: "wallet", wallet: principal.id }))) return;
      }
      return serveEntitled(deps, x, route, view, params, principal);
    }
    const { req, res } = x.express();
    if (route.kind === "paid") {
      if (paymentOf(req)) return servePaidRead(deps, req, res, route, view!, params);
      return sendPaymentRequired(deps, req, res, route, {
        code: "route_not_in_tier",
        message: `Your ${tierWords(principal)} does not cover ${route.path}. Pay per read with one of the offers here, or use a license key.`,
      });
    }
    return sendError(res, "forbidden", `Your ${tierWords(principal)} does not open ${route.path}: it needs a live-feed license key (X-License-Key) or a bearer token minted from one.`);
  }

  if (payment) {
    const { req, res } = x.express();
    return servePaidRead(deps, req, res, route, view!, params);
  }

  // Anonymous: a burst limit per client address, then the free read (node's own objects: exchange.ts), the 402 or the 401.
  if (!(await withinBurstOf(deps, x.client(), () => x.express().res))) return;
  if (free && view) return serveFree(deps, x, route, view, params);
  const { req, res } = x.express();
  if (route.kind === "paid") return sendPaymentRequired(deps, req, res, route);
  res.setHeader("WWW-Authenticate", bearerChallenge(deps));
  return sendError(res, "credential_required", `${route.path} is the live tier: send a live-feed license key in X-License-Key, or a bearer token from POST /oauth/token.`);
}

/**
 * Spends one of the client address's burst (an IPv6 client's /64); when refused (or metering
 * fails a way that cannot pass), the answer is already sent. `failure`: "closed" in front of
 * keyed or paid work (meter.ts).
 */
export function withinAnonymousBurst(deps: ReadDeps, req: Request, res: Response, failure: BurstFailure = "open"): Promise<boolean> {
  return withinBurstOf(deps, clientOf(req), () => res, failure);
}

/** withinAnonymousBurst of a client address; `respond` gives the response to answer a refusal on (made only then). */
async function withinBurstOf(deps: ReadDeps, client: string, respond: () => Response, failure: BurstFailure = "open"): Promise<boolean> {
  let burst: ConsumeReply;
  try {
    burst = await consume(deps.nc, deps.timeoutMs, deps.log, addressBurstKey(client), "anonymous", failure);
  } catch (err) {
    sendUpstreamError(respond(), err);
    return false;
  }
  if (burst.granted) return true;
  sendLimited(respond(), burst);
  return false;
}

async function serveFree(deps: ReadDeps, x: Exchange, route: Route, view: ViewName, params: Record<string, string>) {
  const { req, res } = x;
  let reply: ServedView;
  try {
    reply = await readBoardView(deps, req, view, params, { conditional: true });
  } catch (err) {
    return sendUpstreamError(x.express().res, err);
  }
  sendBoardView(req, res, reply);
  if (reply.meta.status === 200 && req.method === "GET") deps.served(route.path, "anonymous");
}

/**
 * A read the principal's tier covers: counted (free tiers) or burst-checked (licenses), then
 * served with node's own request and response (Exchange); a refusal or failure is answered
 * through express.
 */
async function serveEntitled(deps: ReadDeps, x: Exchange, route: Route, view: ViewName | null, params: Record<string, string>, principal: Principal): Promise<void> {
  const { req, res } = x;
  const freeTier = isFreeTier(principal);
  // The count and the board read go out together, with every other read of this turn: one bus
  // write and one round trip of waiting instead of two. Nothing is served (nor counted as
  // served) unless the count granted it.
  await busTurn();
  const counting = consume(deps.nc, deps.timeoutMs, deps.log, principal.id, freeTier ? "free" : "licensed");
  // A free-tier body carries its tier block, so it is read uncompressed and spliced.
  const reading = view ? readBoardView(deps, req, view, params, { conditional: false, ...(freeTier ? { encoding: "identity" as const } : {}) }) : null;
  // Its failure is answered below once the count granted the read, and dropped when it did not.
  reading?.catch(() => undefined);
  let count: ConsumeReply;
  try {
    count = await counting;
  } catch (err) {
    return sendUpstreamError(x.express().res, err);
  }
  if (!count.granted) return sendLimited(x.express().res, count);
  const daily = count.daily;
  if (!reading) {
    if (daily) await refund(deps.nc, deps.timeoutMs, deps.log, principal.id, daily.day);
    return sendError(x.express().res, "not_implemented", `${route.path} is not served yet; your license is valid for it.`);
  }

  let reply: ServedView;
  try {
    reply = await reading;
  } catch (err) {
    if (daily) await refund(deps.nc, deps.timeoutMs, deps.log, principal.id, daily.day);
    return sendUpstreamError(x.express().res, err);
  }
  res.setHeader("Cache-Control", "private, no-store");
  res.setHeader("X-Board-Tier", principal.tier);
  if (daily) {
    setDailyHeaders(res, daily);
    sendBoardView(req, res, { meta: reply.meta, body: [withTierBlock(wholeBody(reply), tierBlock(principal, daily))] }, {}, { etag: false });
  } else {
    sendBoardView(req, res, reply);
  }
  deps.served(route.path, principal.tier);
}

function sendLimited(res: Response, refusal: Extract<ConsumeReply, { granted: false }>): void {
  if (refusal.daily) setDailyHeaders(res, refusal.daily);
  const message =
    refusal.reason === "daily_cap_reached"
      ? `The free tier's ${refusal.daily?.limit ?? 25} reads for today are used; the count starts again at ${refusal.daily?.reset_at ?? "00:00 UTC"}. Pay per read meanwhile, or use a license key.`
      : "Too many requests at once. Pace requests sequentially and retry after the given seconds.";
  sendError(res, refusal.reason, message, { retry_after_seconds: refusal.retry_after_seconds });
}

function sendCredentialRefusal(deps: ReadDeps, req: Request, res: Response, route: Route, refusal: Extract<Access, { kind: "refused" }>): Promise<void> | void {
  if (refusal.code === "sign_in_invalid" || refusal.code === "sign_in_expired") {
    // The next challenge to sign comes with a fresh 402.
    if (route.kind === "paid") return sendPaymentRequired(deps, req, res, route, { code: refusal.code, message: refusal.message });
    res.setHeader("WWW-Authenticate", bearerChallenge(deps));
    return sendError(res, "credential_required", `${refusal.message} A wallet sign-in does not open the live tier.`);
  }
  if (refusal.code === "token_invalid") res.setHeader("WWW-Authenticate", bearerChallenge(deps, "invalid_token"));
  sendError(res, refusal.code, refusal.message);
}

/** RFC 6750 challenge pointing at our RFC 9728 metadata. */
function bearerChallenge(deps: ReadDeps, error?: string): string {
  const metadata = new URL("/.well-known/oauth-protected-resource", deps.publicBaseUrl).toString();
  return `Bearer realm="board"${error ? `, error="${error}"` : ""}, scope="board:live", resource_metadata="${metadata}"`;
}

function tierWords(p: Principal): string {
  switch (p.tier) {
    case "free_key":
      return "free key";
    case "wallet":
      return "wallet sign-in";
    case "scanner_license":
      return "scanner license";
    case "live_license":
      return "live-feed license";
    case "bearer":
      return "bearer token";
  }
}
