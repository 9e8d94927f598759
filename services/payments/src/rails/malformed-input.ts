/**
 * Errors a malformed client value causes while a library reads it (a schema's error, JSON,
 * BigInt of a non-number), as opposed to a failure of ours or of the chain: the payment is at
 * fault (a 402), and asking again would not help (so not a 503).
 */
export function isMalformedInput(err: unknown): boolean {
  return err instanceof SyntaxError || err instanceof RangeError || (err instanceof Error && /^\$?ZodError$/.test(err.name));
}
