import { identityRegister, type RegisterReply } from "@board/proto";
import { request } from "@board/service-kit";
import type { Request, Response } from "express";
import { readJsonObject } from "../http/bodies.js";
import { sendUpstreamError } from "../http/errors.js";
import { noStore, oauthError } from "./server.js";
import { withinAnonymousBurst, type ReadDeps } from "../reads/read.js";

/**
 * POST /oauth/register: RFC 7591 dynamic client registration, open to anyone (an MCP host
 * registers itself before it sends its user to sign in), within the client address's burst.
 * Identity checks the metadata; a confidential client's secret is in this answer only.
 */
export async function postRegister(deps: ReadDeps, req: Request, res: Response): Promise<void> {
  if (!(await withinAnonymousBurst(deps, req, res))) return;
  const body = await readJsonObject(req);
  if (!body.ok) return oauthError(res, 400, "invalid_client_metadata", body.message);
  let reply: RegisterReply;
  try {
    reply = await request(deps.nc, identityRegister, { metadata: body.value }, { timeoutMs: deps.timeoutMs });
  } catch (err) {
    return sendUpstreamError(res, err);
  }
  if (!reply.ok) return oauthError(res, 400, reply.error, reply.error_description);
  noStore(res).status(201).type("application/json").send(JSON.stringify(reply.client));
}
