import { ERROR_STATUS, type ErrorCode } from "@board/proto";

/**
 * An error that is data: an HTTP-like status and a stable reason code. Only these cross
 * the bus; any other failure becomes internal_error without its text.
 */
export class BusError extends Error {
  override readonly name = "BusError";
  constructor(
    readonly code: ErrorCode,
    readonly status: number = ERROR_STATUS[code],
    message?: string,
    readonly param?: string,
  ) {
    super(message ?? code);
  }
}

export const isBusError = (e: unknown): e is BusError => e instanceof BusError;
