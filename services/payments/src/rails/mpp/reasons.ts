import { ErrorCode } from "@board/proto";
import { Errors } from "mppx";

/** The reason codes an MPP credential can be refused with: proto's payment refusals (every payment_* code but the plain 402). */
export type MppReason = Exclude<Extract<ErrorCode, `payment_${string}`>, "payment_required">;

const MPP_REASONS: ReadonlySet<string> = new Set(ErrorCode.options.filter((c) => c.startsWith("payment_") && c !== "payment_required"));

/** RFC 9457 problem details as mppx writes them, plus our reason code as an extension member. */
export type MppProblem = ReturnType<Errors.PaymentError["toProblemDetails"]> & { code: MppReason };

export interface MppRefusal {
  ok: false;
  reason: MppReason;
  /** mppx's message: safe to show (it never carries RPC or internal text). */
  detail: string;
  /** The application/problem+json body of the 402. */
  problem: MppProblem;
}

/**
 * A refusal raised by our own checks inside the method. It is mppx's VerificationFailedError
 * (so mppx treats it as a payment failure and renders its problem type), with our code in
 * `details.code`.
 */
export class UsdcRefusal extends Errors.VerificationFailedError {
  readonly code: MppReason;
  constructor(code: MppReason, reason: string) {
    super({ reason, details: { code } });
    this.code = code;
  }
}

/** Which request field a route-binding mismatch names, as our code. */
const BINDING_FIELDS: Record<string, MppReason> = {
  scope: "payment_route_mismatch",
  amount: "payment_amount_mismatch",
  recipient: "payment_pay_to_mismatch",
  currency: "payment_asset_mismatch",
  chainId: "payment_network_mismatch",
};

/** Our code for an error mppx raised while validating or broadcasting a credential. */
export function reasonOf(error: Errors.PaymentError): MppReason {
  if (error instanceof UsdcRefusal) return error.code;
  const code = (error.details as { code?: unknown } | undefined)?.code;
  if (typeof code === "string" && MPP_REASONS.has(code)) return code as MppReason;
  if (error instanceof Errors.PaymentExpiredError) return "payment_expired";
  if (error instanceof Errors.InvalidPayloadError || error instanceof Errors.MalformedCredentialError) return "payment_invalid_header";
  if (error instanceof Errors.PaymentMethodUnsupportedError) return "payment_unsupported_scheme";
  if (error instanceof Errors.InvalidChallengeError) {
    // mppx names the mismatching field only in its message: "credential <field> does not match this route's requirements".
    const field = /credential (\w+) does not match/.exec(error.message)?.[1];
    if (field) return BINDING_FIELDS[field] ?? "payment_rejected";
    if (/no registered method/.test(error.message)) return "payment_unsupported_scheme";
    // Not issued by us (HMAC), or without a usable expiry: the credential does not carry one of our challenges.
    return "payment_invalid_header";
  }
  return "payment_rejected";
}

export function refusal(error: Errors.PaymentError, challengeId?: string, reason: MppReason = reasonOf(error)): MppRefusal {
  return { ok: false, reason, detail: error.message, problem: { ...error.toProblemDetails(challengeId), code: reason } };
}

/** A refusal of a header that is not a Payment credential at all. */
export function malformed(why: string): MppRefusal {
  return refusal(new Errors.MalformedCredentialError({ reason: why }));
}
