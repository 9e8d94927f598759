// One GET to Alpaca's market data API, done the way vendor.ts does Polygon's: every request waits
// for the client-side token bucket, has a time limit, and is retried with exponential backoff and
// jitter on network errors, timeouts, 5xx and 429 (429 waits for Retry-After when given). Other
// 4xx fail at once with a clear error. The key and secret travel only as the APCA-API-KEY-ID and
// APCA-API-SECRET-KEY headers, never in a URL, and are cut out of any text (an echoed body, a
// network error) before it reaches an error or a log line.

import { setTimeout as sleep } from "node:timers/promises";
import { TokenBucket } from "./rate-limit.js";
import { retryAfterMs, VendorError } from "./vendor.js";

/** The slice of a pino logger the provider uses. */
export type AlpacaLog = { warn(obj: object, msg: string): void };

/** The slice of fetch the client uses (a recorder or a replayer can stand in for it). */
export type FetchLike = (url: URL, init: { signal: AbortSignal; headers: Record<string, string> }) => Promise<Response>;

export type AlpacaHttpOptions = {
  keyId?: string | undefined;
  secretKey?: string | undefined;
  requestsPerMinute: number;
  burst?: number | undefined;
  timeoutMs: number;
  maxRetries: number;
  backoffBaseMs: number;
  backoffMaxMs: number;
  maxRetryAfterMs: number;
  log?: AlpacaLog | undefined;
  fetch?: FetchLike | undefined;
};

class Retryable extends Error {
  constructor(
    message: string,
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

export class AlpacaHttp {
  readonly #opts: AlpacaHttpOptions;
  readonly #bucket: TokenBucket;
  readonly #closed = new AbortController();
  readonly #fetch: FetchLike;
  readonly #secrets: string[];
  /** HTTP requests sent (attempts included), for tests and metrics. */
  requests = 0;

  constructor(opts: AlpacaHttpOptions) {
    this.#opts = opts;
    this.#bucket = new TokenBucket(opts.requestsPerMinute, {
      ...(opts.burst !== undefined ? { burst: opts.burst } : {}),
      signal: this.#closed.signal,
    });
    this.#fetch = opts.fetch ?? ((url, init) => globalThis.fetch(url, init));
    const secrets = [opts.keyId, opts.secretKey].filter((s): s is string => typeof s === "string" && s.length > 0);
    this.#secrets = [...new Set(secrets.flatMap((s) => [s, encodeURIComponent(s)]))].sort((a, b) => b.length - a.length);
  }

  get hasKey(): boolean {
    return Boolean(this.#opts.keyId && this.#opts.secretKey);
  }

  close(): void {
    this.#closed.abort(closedError());
  }

  /** `text` without the key or the secret, plain or URL-encoded. */
  redact(text: string): string {
    let out = text;
    for (const s of this.#secrets) out = out.split(s).join("***");
    return out;
  }

  /** One GET with rate limiting, time limit and retries; the parsed JSON body. `auth`: send the key headers. */
  async getJson(url: URL, label: string, auth: boolean): Promise<unknown> {
    const shown = this.redact(url.toString());
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.#attempt(url, label, shown, auth);
      } catch (err) {
        if (!(err instanceof Retryable) || this.#closed.signal.aborted) throw err;
        if (attempt >= this.#opts.maxRetries) {
          throw new VendorError(`alpaca: ${label}: giving up after ${attempt + 1} attempts: ${err.message}`);
        }
        const delayMs = this.#delay(attempt, err.retryAfterMs);
        this.#opts.log?.warn({ symbol: label, attempt: attempt + 1, delayMs, url: shown, reason: err.message }, "alpaca request failed; retrying");
        await sleep(delayMs, undefined, { signal: this.#closed.signal }).catch(() => {
          throw closedError();
        });
      }
    }
  }

  async #attempt(url: URL, label: string, shown: string, auth: boolean): Promise<unknown> {
    await this.#bucket.take().catch((err: unknown) => {
      throw this.#closed.signal.aborted ? closedError() : err;
    });
    this.requests++;
    const { timeoutMs } = this.#opts;
    const signal = AbortSignal.any([AbortSignal.timeout(timeoutMs), this.#closed.signal]);
    const headers: Record<string, string> = { accept: "application/json" };
    if (auth && this.hasKey) {
      headers["APCA-API-KEY-ID"] = this.#opts.keyId!;
      headers["APCA-API-SECRET-KEY"] = this.#opts.secretKey!;
    }
    let status: number;
    let text: string;
    let retryAfter: string | null;
    try {
      const res = await this.#fetch(url, { signal, headers });
      status = res.status;
      retryAfter = res.headers.get("retry-after");
      text = await res.text();
    } catch (err) {
      if (this.#closed.signal.aborted) throw closedError();
      const e = err as Error & { cause?: { code?: string; message?: string } };
      const reason =
        e.name === "TimeoutError" ? `timed out after ${timeoutMs} ms` : `network error: ${e.cause?.code ?? e.cause?.message ?? e.message}`;
      throw new Retryable(this.redact(`${reason} (${shown})`));
    }

    if (status === 429) throw new Retryable(`HTTP 429 too many requests (${shown})`, retryAfterMs(retryAfter));
    if (status >= 500) throw new Retryable(`HTTP ${status} (${shown})`, retryAfterMs(retryAfter));
    if (status === 401 || status === 403) {
      // 403 also answers a plan that does not cover the ask (recent SIP data on the free plan).
      throw new VendorError(
        `alpaca: ${label}: HTTP ${status} from ${shown}: key refused or the plan does not cover this feed (${this.redact(snippet(text))})`,
        status,
      );
    }
    if (status < 200 || status >= 300) {
      throw new VendorError(`alpaca: ${label}: HTTP ${status} from ${shown}: ${this.redact(snippet(text))}`, status);
    }
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new VendorError(`alpaca: ${label}: malformed JSON from ${shown}: ${this.redact(snippet(text))}`, status);
    }
  }

  #delay(attempt: number, retryAfter: number | undefined): number {
    const { backoffBaseMs, backoffMaxMs, maxRetryAfterMs } = this.#opts;
    const jitter = Math.random() * Math.min(backoffBaseMs, 1_000) * 0.25;
    if (retryAfter !== undefined) return Math.min(retryAfter, maxRetryAfterMs) + jitter;
    const step = Math.min(backoffMaxMs, backoffBaseMs * 2 ** attempt);
    return step / 2 + Math.random() * (step / 2);
  }
}

function closedError(): VendorError {
  return new VendorError("alpaca: provider closed");
}

function snippet(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > 200 ? `${flat.slice(0, 200)}...` : flat || "(empty body)";
}
