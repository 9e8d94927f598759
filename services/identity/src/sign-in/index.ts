import { createHash } from "node:crypto";
import type { SignInChallengeReply, SignInChallengeRequest, SignInPayload } from "@board/proto";
import { BusError } from "@board/service-kit";
import { signInInfo, signInMessage } from "./challenge.js";
import { isValidSignInAddress, messageAddress, signInChain, SUPPORTED_SIGN_IN_CHAINS } from "./chains.js";
import { HeaderMemo } from "./header-memo.js";
import { SignInNonces } from "./nonce.js";
import { SIGN_IN_MESSAGES, verifySignInPayload, type SignInResult } from "./verify-payload.js";

export type { SignInResult } from "./verify-payload.js";
export { SUPPORTED_SIGN_IN_CHAINS } from "./chains.js";

export interface SignInOptions {
  /** 32-byte key for the nonce MACs (derived from IDENTITY_SECRET by the caller). */
  nonceKey: Uint8Array;
  /** Our public origin (PUBLIC_BASE_URL): the domain and URI every message must be bound to. */
  publicBaseUrl: URL;
  now: () => Date;
}

/** Verified headers remembered at most (one per live session). */
const MEMO_ENTRIES = 10_000;
/** The header's size cap (proto Credentials.siwx). */
const MAX_HEADER_CHARS = 8192;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

type SignedIn = Extract<SignInResult, { ok: true }>;

/** Wallet sign-in (SIWX, CAIP-122) on Base, Solana and Algorand: challenges and their verification. */
export class SignIn {
  private readonly nonces: SignInNonces;
  private readonly publicBaseUrl: URL;
  private readonly now: () => Date;
  private readonly memo = new HeaderMemo<SignedIn>(MEMO_ENTRIES);
  private checks = 0;

  constructor(opts: SignInOptions) {
    this.nonces = new SignInNonces(opts.nonceKey);
    this.publicBaseUrl = opts.publicBaseUrl;
    this.now = opts.now;
  }

  /** The SIWX challenge for a 402 (resource_url) or GET /api/auth/nonce (address + chain: adds the exact message). Throws BusError("unknown_chain", 400) / BusError("invalid_address", 400). */
  challenge(req: SignInChallengeRequest): SignInChallengeReply {
    const chain = req.chain === undefined ? undefined : signInChain(req.chain);
    if (req.chain !== undefined && chain === undefined) throw new BusError("unknown_chain", 400);
    // An address alone names no message format.
    if (req.address !== undefined && chain === undefined) throw new BusError("unknown_chain", 400);
    if (req.address !== undefined && chain !== undefined && !isValidSignInAddress(chain.family, req.address)) {
      throw new BusError("invalid_address", 400);
    }
    const info = signInInfo(this.nonces, this.publicBaseUrl, this.now(), req.resource_url);
    const reply: SignInChallengeReply = { info, supportedChains: [...SUPPORTED_SIGN_IN_CHAINS] };
    if (chain === undefined || req.chain === undefined) return reply;
    // The chain id as the client named it: the message's Chain ID line must match its payload.
    reply.chainId = req.chain;
    reply.type = chain.type;
    if (req.address !== undefined) {
      const address = messageAddress(chain.family, req.address);
      reply.address = address;
      reply.message = signInMessage(chain.family, { ...info, chainId: req.chain, type: chain.type }, address);
    }
    return reply;
  }

  /** Verifies a signed payload (POST /api/auth/verify body). */
  verify(payload: SignInPayload): Promise<SignInResult> {
    return this.verifyUnknown(payload);
  }

  /** The payload is parsed there: a bus body or a decoded header is not trusted to be a SignInPayload. */
  private verifyUnknown(payload: unknown): Promise<SignInResult> {
    return verifySignInPayload(payload, {
      nonces: this.nonces,
      publicBaseUrl: this.publicBaseUrl,
      now: this.now,
      onSignatureCheck: () => this.checks++,
    });
  }

  /** Decodes a SIGN-IN-WITH-X header (base64 JSON of SignInPayload) and verifies it; a verified header is remembered (bounded memo keyed by its sha256) until its expirationTime so a session costs one signature check. */
  async verifyHeader(header: string): Promise<SignInResult> {
    const key = createHash("sha256").update(header).digest("hex");
    const remembered = this.memo.get(key, this.now());
    if (remembered !== undefined) return remembered;
    const payload = decodeHeader(header);
    if (payload === undefined) return { ok: false, code: "sign_in_invalid", message: SIGN_IN_MESSAGES.malformed };
    const result = await this.verifyUnknown(payload);
    if (result.ok) this.memo.set(key, result, this.now());
    return result;
  }

  /** Signatures actually checked since start (a memo hit checks none): for tests and metrics. */
  get signatureChecks(): number {
    return this.checks;
  }
}

/** The header's JSON, or undefined when it is not base64 of JSON (its shape is checked by verify). */
function decodeHeader(header: string): unknown {
  if (header.length > MAX_HEADER_CHARS || !BASE64.test(header)) return undefined;
  try {
    return JSON.parse(Buffer.from(header, "base64").toString("utf8")) as unknown;
  } catch {
    return undefined;
  }
}
