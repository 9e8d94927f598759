// Recorded vendor responses: a fetch that records what the vendor answered to a folder, one file
// per request, and (replay.ts) a fetch that answers from that folder instead of the vendor.
//
// Nothing secret reaches the folder:
// - the URL is stored, and keyed, without its credentials: query parameters that carry a key
//   (apiKey, api_key, key, token, access_token, secret, signature, ... and any the caller names)
//   and any user:password are removed;
// - no request header is stored at all (Alpaca sends its key id and secret in headers);
// - of the response's headers only those a client acts on are kept (content-type, Retry-After);
// - every secret value the request carried (the stripped parameters' values, the values of its
//   credential headers, and the values the caller names in `secrets`) is cut out of the stored
//   URL, headers and body, plain or URL-encoded, before anything is written. A body that echoed a
//   secret is stored with the secret replaced by `[redacted]` and says so (`redacted: true`).
//
// One file per key (method and stripped URL, query parameters sorted): a request asked again
// overwrites the earlier answer, so a retried 429 or 5xx is replaced by the answer that followed.
// Files are written whole (a temporary file renamed into place), so a reader never sees half of one.
//
// Raw vendor data stays local: the folder is not to be committed (docs/decisions.md, "Market data
// recordings"); the default folder name below is in .gitignore.

import { createHash, randomBytes } from "node:crypto";
import { mkdir, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";

/** The folder a deployment records to when it names none; git ignores it. */
export const DEFAULT_RECORDING_DIR = ".market-data-recordings";

/** Format of a recorded file; a replay refuses a file of another. */
export const RECORDING_FORMAT = "board.market-recording.v1";

/** Query parameters that carry a credential (compared case-insensitively, `-` and `_` ignored). */
const SECRET_PARAMS = [
  "apikey",
  "key",
  "apisecret",
  "secret",
  "secretkey",
  "clientsecret",
  "token",
  "accesstoken",
  "authtoken",
  "auth",
  "authorization",
  "password",
  "passwd",
  "signature",
  "sig",
  "apcaapikeyid",
  "apcaapisecretkey",
];

/** Request headers whose values are credentials: cut out of anything stored. */
const SECRET_HEADER = /auth|key|secret|token|cookie|signature|password|credential/i;

/** Response headers kept by default: the ones a vendor client reads. */
export const DEFAULT_KEPT_HEADERS = ["content-type", "retry-after"] as const;

/** Shorter values are not treated as secrets (cutting them out would mangle bodies). */
const MIN_SECRET_LENGTH = 4;

export const REDACTED = "[redacted]";

/** A recorded response, as stored (JSON, one file per request). */
export type RecordedResponse = {
  format: typeof RECORDING_FORMAT;
  /** The request's method and stripped URL, as keyed. */
  method: string;
  url: string;
  status: number;
  statusText: string;
  /** The kept response headers, lower-case names. */
  headers: Record<string, string>;
  /** `utf8`: the body as text; `base64`: bytes that are not UTF-8. */
  encoding: "utf8" | "base64";
  body: string;
  /** True when a secret value was cut out of the body or headers (the replayed body then differs). */
  redacted: boolean;
  recorded_at: string;
};

export type CredentialOptions = {
  /** More query parameter names that carry credentials. */
  secretParams?: readonly string[];
};

export type RecordingOptions = CredentialOptions & {
  /** Known secret values (the vendor's key, key id, secret): cut out of everything stored. */
  secrets?: readonly string[];
  /** Response headers to keep (lower-case); default content-type and retry-after. */
  keepHeaders?: readonly string[];
  /** The wall clock of `recorded_at`; default the system clock. */
  now?: () => Date;
};

const normalized = (name: string) => name.toLowerCase().replace(/[-_]/g, "");

function secretParamSet(opts: CredentialOptions): Set<string> {
  return new Set([...SECRET_PARAMS, ...(opts.secretParams ?? []).map(normalized)]);
}

/** What a fetch was asked: its method, URL and headers, whatever form the arguments took. */
export function requestOf(input: string | URL | Request, init?: RequestInit): { method: string; url: URL; headers: Headers } {
  const isRequest = typeof Request !== "undefined" && input instanceof Request;
  const url = new URL(isRequest ? input.url : input instanceof URL ? input.href : String(input));
  const method = (init?.method ?? (isRequest ? input.method : "GET")).toUpperCase();
  const headers = new Headers(isRequest ? input.headers : undefined);
  if (init?.headers) for (const [k, v] of new Headers(init.headers)) headers.set(k, v);
  return { method, url, headers };
}

/**
 * The URL without its credentials, and the secret values removed: credential query parameters and
 * any user:password. The remaining parameters keep their order.
 */
export function stripCredentials(url: URL | string, opts: CredentialOptions = {}): { url: URL; removed: string[] } {
  const out = new URL(url.toString());
  const removed: string[] = [];
  if (out.username) removed.push(decodeURIComponent(out.username));
  if (out.password) removed.push(decodeURIComponent(out.password));
  out.username = "";
  out.password = "";
  const secret = secretParamSet(opts);
  const kept = new URLSearchParams();
  for (const [k, v] of out.searchParams) {
    if (secret.has(normalized(k))) removed.push(v);
    else kept.append(k, v);
  }
  const query = kept.toString();
  out.search = query === "" ? "" : `?${query}`;
  out.hash = "";
  return { url: out, removed };
}

/** The stable key of a request: its method and stripped URL with the query parameters sorted. */
export function recordingKey(method: string, strippedUrl: URL): string {
  const canonical = new URL(strippedUrl.href);
  canonical.searchParams.sort();
  return `${method.toUpperCase()} ${canonical.href}`;
}

/**
 * The file a key is stored in: a readable slug of the method and path (for people listing the
 * folder) and a hash of the whole key (so two keys never share a file).
 */
export function recordingFileName(key: string): string {
  const hash = createHash("sha256").update(key).digest("hex").slice(0, 24);
  const [method = "GET", href = ""] = key.split(" ", 2);
  let path = href;
  try {
    path = new URL(href).pathname;
  } catch {
    // keep the whole text
  }
  const slug = `${method}${path}`
    .replace(/[^A-Za-z0-9.]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 80);
  return `${slug}.${hash}.json`;
}

/** Every form a secret may take in stored text: plain, URL-encoded, form-encoded. */
function secretForms(values: Iterable<string>): string[] {
  const forms = new Set<string>();
  for (const v of values) {
    if (v.length < MIN_SECRET_LENGTH) continue;
    forms.add(v);
    forms.add(encodeURIComponent(v));
    forms.add(new URLSearchParams({ v }).toString().slice(2));
  }
  // Longest first, so a form that contains another is cut whole.
  return [...forms].filter((f) => f.length >= MIN_SECRET_LENGTH).sort((a, b) => b.length - a.length);
}

function redactText(text: string, forms: readonly string[]): { text: string; redacted: boolean } {
  let out = text;
  for (const f of forms) out = out.split(f).join(REDACTED);
  return { text: out, redacted: out !== text };
}

function redactBytes(bytes: Buffer, forms: readonly string[]): { bytes: Buffer; redacted: boolean } {
  let out = bytes;
  let redacted = false;
  for (const f of forms) {
    const needle = Buffer.from(f, "utf8");
    const parts: Buffer[] = [];
    let from = 0;
    for (let at = out.indexOf(needle, from); at !== -1; at = out.indexOf(needle, from)) {
      parts.push(out.subarray(from, at), Buffer.from(REDACTED, "utf8"));
      from = at + needle.length;
    }
    if (parts.length > 0) {
      parts.push(out.subarray(from));
      out = Buffer.concat(parts);
      redacted = true;
    }
  }
  return { bytes: out, redacted };
}

const UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

function asUtf8(bytes: Buffer): string | null {
  try {
    const text = UTF8.decode(bytes);
    return Buffer.from(text, "utf8").equals(bytes) ? text : null;
  } catch {
    return null;
  }
}

/** Statuses whose Response may not carry a body. */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/** A Response for a body already read, with the headers that still hold (no length or encoding: the body is decoded). */
export function responseOf(body: Uint8Array | null, init: { status: number; statusText?: string; headers: Headers | Record<string, string> }): Response {
  const headers = new Headers(init.headers);
  headers.delete("content-encoding");
  headers.delete("content-length");
  headers.delete("transfer-encoding");
  return new Response(NULL_BODY.has(init.status) ? null : body, { status: init.status, statusText: init.statusText ?? "", headers });
}

/**
 * A fetch that asks `inner` and writes each response to `dir` (created when missing), without any
 * secret, before handing the caller an equivalent Response. A request `inner` fails (network error,
 * timeout, abort) records nothing and fails the same way.
 */
export function recordingFetch(inner: typeof fetch, dir: string, opts: RecordingOptions = {}): typeof fetch {
  const keep = new Set((opts.keepHeaders ?? DEFAULT_KEPT_HEADERS).map((h) => h.toLowerCase()));
  const now = opts.now ?? (() => new Date());
  let made: Promise<unknown> | null = null;

  const recording = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const asked = requestOf(input, init);
    const { url: stripped, removed } = stripCredentials(asked.url, opts);
    const secrets = [...removed, ...(opts.secrets ?? [])];
    for (const [name, value] of asked.headers) if (SECRET_HEADER.test(name)) secrets.push(value);
    const forms = secretForms(secrets);

    const res = await inner(input, init);
    const bytes = Buffer.from(await res.arrayBuffer());

    const headers: Record<string, string> = {};
    let redacted = false;
    for (const [name, value] of res.headers) {
      if (!keep.has(name.toLowerCase())) continue;
      const r = redactText(value, forms);
      headers[name.toLowerCase()] = r.text;
      redacted ||= r.redacted;
    }
    const storedUrl = redactText(stripped.href, forms);
    const storedBody = redactBytes(bytes, forms);
    redacted ||= storedBody.redacted || storedUrl.redacted;
    const text = asUtf8(storedBody.bytes);
    const key = recordingKey(asked.method, new URL(storedUrl.text));
    const record: RecordedResponse = {
      format: RECORDING_FORMAT,
      method: asked.method,
      url: storedUrl.text,
      status: res.status,
      statusText: redactText(res.statusText, forms).text,
      headers,
      encoding: text === null ? "base64" : "utf8",
      body: text ?? storedBody.bytes.toString("base64"),
      redacted,
      recorded_at: now().toISOString(),
    };
    const json = `${JSON.stringify(record, null, 2)}\n`;
    // Belt and braces: the text written is checked once more, whole.
    if (forms.some((f) => json.includes(f))) throw new Error(`recording: refusing to write a secret for ${record.method} ${record.url}`);

    made ??= mkdir(dir, { recursive: true });
    await made;
    const file = join(dir, recordingFileName(key));
    const tmp = `${file}.${randomBytes(6).toString("hex")}.tmp`;
    await writeFile(tmp, json, { mode: 0o600 });
    await rename(tmp, file);

    return responseOf(bytes, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
  return recording as typeof fetch;
}
