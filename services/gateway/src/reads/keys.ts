import { FreeKeyRequest, identityFreeKey, identitySignInChallenge, identitySignInVerify, SignInChallengeRequest, SignInPayload } from "@board/proto";
import { BusError, request } from "@board/service-kit";
import type { Request, Response } from "express";
import { readJsonObject } from "../http/bodies.js";
import { sendError, sendUpstreamError } from "../http/errors.js";
import { walletOf, withinNewCredentialLimit } from "./new-credentials.js";
import { withinAnonymousBurst, type ReadDeps } from "./read.js";

const sendJson = (res: Response, status: number, body: unknown) =>
  res.status(status).type("application/json").setHeader("Cache-Control", "no-store").send(JSON.stringify(body));

/** POST /api/key {email}: a free key, shown once. Posting the same email again replaces the key. Each key issued counts toward the client address's hourly limit. */
export async function postFreeKey(deps: ReadDeps, req: Request, res: Response): Promise<void> {
  const body = await readJsonObject(req);
  if (!body.ok) return sendError(res, "invalid_request", body.message);
  const parsed = FreeKeyRequest.safeParse(body.value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const missing = body.value.email === undefined;
    return sendError(res, "invalid_request", missing ? "The body needs an email: {\"email\": \"you@example.com\"}." : `${issue?.message ?? "email is invalid"}.`, { param: "email" });
  }
  if (!(await withinAnonymousBurst(deps, req, res))) return;
  if (!(await withinNewCredentialLimit(deps, req, res, { kind: "free_key" }))) return;
  try {
    sendJson(res, 201, await request(deps.nc, identityFreeKey, parsed.data, { timeoutMs: deps.timeoutMs }));
  } catch (err) {
    sendUpstreamError(res, err);
  }
}

/** GET /api/auth/nonce?address=&chain=: the CAIP-122 message to sign, with a nonce we issued. */
export async function getSignInNonce(deps: ReadDeps, req: Request, res: Response, query: { address: string; chain: string }): Promise<void> {
  if (!(await withinAnonymousBurst(deps, req, res))) return;
  const resource = new URL("/api/auth/verify", deps.publicBaseUrl).toString();
  const challenge = { address: query.address, chain: query.chain, resource_url: resource };
  // A value the bus contract does not take (a chain id shorter than any CAIP-2 id) is answered as identity answers an unknown one.
  const checked = SignInChallengeRequest.safeParse(challenge);
  if (!checked.success) return sendUpstreamError(res, new BusError(checked.error.issues[0]?.path[0] === "address" ? "invalid_address" : "unknown_chain", 400));
  try {
    const reply = await request(deps.nc, identitySignInChallenge, checked.data, { timeoutMs: deps.timeoutMs });
    sendJson(res, 200, reply);
  } catch (err) {
    sendUpstreamError(res, err);
  }
}

/** POST /api/auth/verify: the signed SIWX payload (the JSON the SIGN-IN-WITH-X header base64-encodes) for a wallet-tier key. A wallet new to the client address this hour counts toward its limit. */
export async function postSignInVerify(deps: ReadDeps, req: Request, res: Response): Promise<void> {
  const body = await readJsonObject(req);
  if (!body.ok) return sendError(res, "invalid_request", body.message);
  const parsed = SignInPayload.safeParse(body.value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const param = issue?.path.join(".") || "body";
    return sendError(res, "invalid_request", `${param}: ${issue?.message ?? "invalid"}. Send the signed payload: the challenge's fields with address, chainId, type and signature.`, { param });
  }
  if (!(await withinAnonymousBurst(deps, req, res))) return;
  if (!(await withinNewCredentialLimit(deps, req, res, { kind: "wallet", wallet: walletOf(parsed.data) }))) return;
  try {
    const reply = await request(deps.nc, identitySignInVerify, { payload: parsed.data }, { timeoutMs: deps.timeoutMs });
    if (!reply.ok) return sendError(res, reply.code, reply.message, {}, 401);
    const { ok: _ok, ...key } = reply;
    sendJson(res, 201, key);
  } catch (err) {
    sendUpstreamError(res, err);
  }
}
