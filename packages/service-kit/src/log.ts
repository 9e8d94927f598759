import { pino, type Logger } from "pino";

export type { Logger };

/** Header and field names whose values must never reach a log line. */
const REDACT = [
  "req.headers.authorization",
  "req.headers.x-license-key",
  "req.headers.x-board-key",
  "req.headers.payment-signature",
  "req.headers.x-payment",
  "req.headers.sign-in-with-x",
  "*.password",
  "*.secret",
  "*.key",
  "*.email",
  "databaseUrl",
];

export function createLogger(service: string, level: string, instance: string): Logger {
  return pino({
    level,
    base: { service, instance },
    redact: { paths: REDACT, censor: "[redacted]" },
    timestamp: pino.stdTimeFunctions.isoTime,
  });
}

/** A postgres URL with its password removed, for log lines. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return "[unparseable url]";
  }
}
