import { meteringNewCredential, type NewCredentialReply, type SignInPayload } from "@board/proto";
import { request, type NatsConnection } from "@board/service-kit";
import type { Request, Response } from "express";
import type { CountedWallets } from "../access/counted-wallets.js";
import { clientOf } from "../http/client-address.js";
import { sendError, sendUpstreamError } from "../http/errors.js";

/** What the gateway is about to give the client address: a free key, or a wallet's sign-in (identity's principal id). */
export type NewCredential = { kind: "free_key" } | { kind: "wallet"; wallet: string };

/**
 * Counts a new free key or wallet sign-in against the client address's hourly limit
 * (metering, proto NewCredentialRequest); when refused, or when metering cannot count it
 * (it fails closed: an uncounted key is a day's reads handed out unbounded), the answer is
 * already sent: 429 key_issue_limit / sign_in_limit with Retry-After.
 */
export async function withinNewCredentialLimit(
  deps: { nc: NatsConnection; timeoutMs: number; countedWallets?: CountedWallets },
  req: Request,
  res: Response,
  credential: NewCredential,
): Promise<boolean> {
  const client = clientOf(req);
  const wallet = credential.kind === "wallet" ? credential.wallet : null;
  // Counted for this address a moment ago, and still counting: metering would grant it without counting.
  if (wallet && deps.countedWallets?.counts(client, wallet)) return true;
  let reply: NewCredentialReply;
  try {
    reply = await request(deps.nc, meteringNewCredential, { ...credential, client }, { timeoutMs: deps.timeoutMs });
  } catch (err) {
    sendUpstreamError(res, err);
    return false;
  }
  if (reply.granted) {
    if (wallet && reply.counted_until) deps.countedWallets?.remember(client, wallet, reply.counted_until);
    return true;
  }
  const message =
    reply.reason === "key_issue_limit"
      ? `This address has been given ${reply.limit} free keys in the last hour, the most it may. A key lasts until it goes unused for 90 days: keep using the one you have, or retry after the given seconds.`
      : `${reply.limit} wallets have signed in from this address in the last hour, the most it may. Wallets already signed in keep working; another can sign in after the given seconds.`;
  sendError(res, reply.reason, message, { retry_after_seconds: reply.retry_after_seconds });
  return false;
}

/**
 * The wallet a signed payload names, as identity names its principal (wallet:<chain>:<address>,
 * EVM addresses lowercased), so a wallet that signs in both ways counts once. The payload is not
 * verified yet: a forged one only spends its own address's room.
 */
export const walletOf = (payload: Pick<SignInPayload, "chainId" | "address">): string =>
  `wallet:${payload.chainId}:${payload.chainId.startsWith("eip155:") ? payload.address.toLowerCase() : payload.address}`;
