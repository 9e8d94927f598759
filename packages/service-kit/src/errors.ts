import { ERROR_STATUS, type ErrorCode } from "@board/proto";

/**
 * An error that is data: an HTTP-like status and a stable reason code. Only these cross
 * the bus; any other failure becomes internal_error without its text. A `worded` error's
 * message is written for the client (what to ask instead) and crosses too, as the error
 * reply's body; any other message stays on its side.
 */
export class BusError extends Error {
  override readonly name = "BusError";
  constructor(
    readonly code: ErrorCode,
    readonly status: number = ERROR_STATUS[code],
    message?: string,
    readonly param?: string,
    readonly worded: boolean = false,
  ) {
    super(message ?? code);
  }

  /** A refusal whose message the client reads as written. */
  static worded(code: ErrorCode, message: string, param?: string): BusError {
    return new BusError(code, ERROR_STATUS[code], message, param, true);
  }
}

export const isBusError = (e: unknown): e is BusError => e instanceof BusError;
