// Replaying recorded vendor responses (recording.ts): a fetch that answers each request from the
// folder by the same key the recording used (method and URL without credentials), and never calls
// the network. A request that was not recorded fails with an error naming its stripped URL.
//
// A board computed from a replay is not live: its provider says `delay: "recorded"` (replayedProvider).
//
// The wiring (env.ts / start.ts) is the engineer's; what it needs is here:
//   MARKET_DATA_RECORD_DIR  record the vendor's responses to this folder (the vendor is still called)
//   MARKET_DATA_REPLAY_DIR  answer from this folder instead of calling the vendor; the board says
//                           delay "recorded"
// Both set is a configuration error. marketDataFetch reads them.

import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { ProviderInfo } from "@board/proto";
import type { MarketDataProvider } from "./provider.js";
import {
  RECORDING_FORMAT,
  recordingFetch,
  recordingFileName,
  recordingKey,
  requestOf,
  responseOf,
  stripCredentials,
  type CredentialOptions,
  type RecordedResponse,
  type RecordingOptions,
} from "./recording.js";

/** A request the folder holds no answer for. */
export class ReplayMissError extends Error {
  constructor(
    readonly method: string,
    /** The URL without its credentials. */
    readonly url: string,
    readonly dir: string,
  ) {
    super(`replay: no recorded response for ${method} ${url} in ${dir} (record it first with MARKET_DATA_RECORD_DIR)`);
    this.name = "ReplayMissError";
  }
}

/** A recorded file that cannot be replayed (unreadable, another format, another request). */
export class ReplayFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ReplayFileError";
  }
}

export type ReplayOptions = CredentialOptions & {
  /** Called with the stripped key of each request answered (for tests and logs). */
  onReplay?: (method: string, url: string) => void;
};

/**
 * A fetch answering from `dir` only. Each request is keyed as the recording keyed it; an abort
 * signal already aborted is honoured. The response carries the recorded status, kept headers and
 * the recorded body, byte for byte.
 */
export function replayFetch(dir: string, opts: ReplayOptions = {}): typeof fetch {
  const replay = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const signal = init?.signal ?? (input instanceof Request ? input.signal : undefined);
    signal?.throwIfAborted();
    const asked = requestOf(input, init);
    const { url: stripped } = stripCredentials(asked.url, opts);
    const key = recordingKey(asked.method, stripped);
    const file = join(dir, recordingFileName(key));
    let text: string;
    try {
      text = await readFile(file, "utf8");
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") throw new ReplayMissError(asked.method, stripped.href, dir);
      throw new ReplayFileError(`replay: cannot read ${file} for ${asked.method} ${stripped.href}: ${(err as Error).message}`);
    }
    const record = parseRecord(text, file);
    if (recordingKey(record.method, new URL(record.url)) !== key) {
      throw new ReplayFileError(`replay: ${file} holds ${record.method} ${record.url}, not ${asked.method} ${stripped.href}`);
    }
    opts.onReplay?.(asked.method, stripped.href);
    const body = record.encoding === "base64" ? Buffer.from(record.body, "base64") : Buffer.from(record.body, "utf8");
    return responseOf(body, { status: record.status, statusText: record.statusText, headers: record.headers });
  };
  return replay as typeof fetch;
}

function parseRecord(text: string, file: string): RecordedResponse {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ReplayFileError(`replay: ${file} is not JSON`);
  }
  const r = json as Partial<RecordedResponse>;
  if (r.format !== RECORDING_FORMAT) throw new ReplayFileError(`replay: ${file} is not a ${RECORDING_FORMAT} recording`);
  const ok =
    typeof r.method === "string" &&
    typeof r.url === "string" &&
    Number.isInteger(r.status) &&
    typeof r.statusText === "string" &&
    typeof r.headers === "object" &&
    r.headers !== null &&
    Object.values(r.headers).every((v) => typeof v === "string") &&
    (r.encoding === "utf8" || r.encoding === "base64") &&
    typeof r.body === "string";
  if (!ok) throw new ReplayFileError(`replay: ${file} is missing fields of a recording`);
  return r as RecordedResponse;
}

/** A provider's label when its responses are replayed: the same vendor and feed, `delay: "recorded"`. */
export function replayedInfo(info: ProviderInfo): ProviderInfo {
  return {
    ...info,
    detail: info.detail.includes("recorded") ? info.detail : `${info.detail}; recorded responses replayed`,
    delay: "recorded",
  };
}

/** `provider` with its label saying it is replayed (replayedInfo); every read is the provider's own. */
export function replayedProvider(provider: MarketDataProvider): MarketDataProvider {
  const info = replayedInfo(provider.info);
  return new Proxy(provider, {
    get(target, prop) {
      if (prop === "info") return info;
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** The env variables of recording and replay (proposed; read by marketDataFetch). */
export type RecordingEnv = {
  MARKET_DATA_RECORD_DIR?: string | undefined;
  MARKET_DATA_REPLAY_DIR?: string | undefined;
};

export type MarketDataFetch =
  | { mode: "live"; fetch: typeof fetch }
  | { mode: "record"; dir: string; fetch: typeof fetch }
  | { mode: "replay"; dir: string; fetch: typeof fetch };

/**
 * The fetch a vendor provider should use: `inner` as is, recording to MARKET_DATA_RECORD_DIR, or
 * replaying MARKET_DATA_REPLAY_DIR (a replayed provider is to be wrapped in replayedProvider).
 * `secrets` are the vendor's credentials (key, key id, secret), cut out of anything recorded.
 */
export function marketDataFetch(env: RecordingEnv, inner: typeof fetch = globalThis.fetch, opts: RecordingOptions = {}): MarketDataFetch {
  const record = env.MARKET_DATA_RECORD_DIR?.trim() || undefined;
  const replay = env.MARKET_DATA_REPLAY_DIR?.trim() || undefined;
  if (record && replay) throw new Error("MARKET_DATA_RECORD_DIR and MARKET_DATA_REPLAY_DIR are both set: record or replay, not both");
  if (replay) return { mode: "replay", dir: replay, fetch: replayFetch(replay, opts) };
  if (record) return { mode: "record", dir: record, fetch: recordingFetch(inner, record, opts) };
  return { mode: "live", fetch: inner };
}
