import { MCP_TOOLS, type Route } from "@board/proto";
import fc from "fast-check";
import { Credential, type Challenge } from "mppx";
import { challengeHash } from "mppx/evm";

/**
 * Arbitraries of HTTP requests to the gateway, derived from the route catalogue: every route,
 * its declared query parameters (valid values, boundaries read off the zod schemas, garbage),
 * every credential header (valid, tampered, structurally plausible, garbage) and the bodies
 * of the POST routes. Used by fuzz.test.ts.
 */

/** One request as it is sent (and printed when its answer breaks the oracle). */
export interface FuzzRequest {
  /** The catalogue path the request targets (the sent path may be a variant of it). */
  readonly route: string;
  readonly method: string;
  /** The path as sent. */
  readonly path: string;
  /** The raw query string, without "?"; null: no "?" at all. */
  readonly query: string | null;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
}

/** What the running stack gave the fuzzer to build valid and plausible values from. */
export interface Vocabulary {
  readonly base: string;
  /** Symbols of the served board. */
  readonly symbols: readonly string[];
  /** Sector ETF symbols of the served board. */
  readonly etfs: readonly string[];
  readonly sectors: readonly string[];
  /** Sessions with a committed board, and those boards' content hashes (the history reads' date and since). */
  readonly dates: readonly string[];
  readonly boardHashes: readonly string[];
  readonly freeKeys: readonly string[];
  readonly licenseKeys: readonly string[];
  /** OAuth clients: the license's client id and its key (the secret). */
  readonly clients: readonly { id: string; secret: string }[];
  readonly bearers: readonly string[];
  /** `kid`s in /oauth/jwks. */
  readonly kids: readonly string[];
  /** Valid SIGN-IN-WITH-X headers. */
  readonly siwx: readonly string[];
  /** The sign-in-with-x challenge `info` of a real 402. */
  readonly siwxInfo: Readonly<Record<string, unknown>>;
  /** Per paid route: the x402 v2 requirements of its real 402 (PAYMENT-REQUIRED accepts) and its resource URL. */
  readonly offers: ReadonlyMap<string, { accepts: readonly Record<string, unknown>[]; resource: Record<string, unknown> }>;
  /** Per paid route: the MPP challenge of its real 402. */
  readonly mppChallenges: ReadonlyMap<string, Challenge.Challenge>;
  /** A real ETag of a free read. */
  readonly etags: readonly string[];
}

// ---------------------------------------------------------------------------------------------
// Strings

const chars = (s: string) => fc.constantFrom(...s.split(""));
const B64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/** Latin-1 text a header can carry: visible ASCII, space, tab and obs-text (0x80-0xFF); no CTLs (Node refuses those before any route runs). */
const headerChar = fc.oneof(
  { weight: 8, arbitrary: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)) },
  { weight: 1, arbitrary: fc.integer({ min: 0x80, max: 0xff }).map((c) => String.fromCharCode(c)) },
  { weight: 1, arbitrary: fc.constant("\t") },
);
export const headerText = (maxLength = 200, minLength = 0) => fc.string({ unit: headerChar, minLength, maxLength });

const hexBytes = (min: number, max = min) => fc.uint8Array({ minLength: min, maxLength: max }).map((b) => `0x${Buffer.from(b).toString("hex")}`);
const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");
const b64url = (s: string | Uint8Array) => Buffer.from(s).toString("base64url");
const randomBase64 = fc.uint8Array({ maxLength: 400 }).map((b) => Buffer.from(b).toString("base64"));
const randomJsonBase64 = fc.jsonValue({ maxDepth: 3 }).map((v) => b64(JSON.stringify(v) ?? "null"));
const evmAddress = hexBytes(20);
const anyString = fc.oneof(fc.string({ maxLength: 40 }), fc.string({ unit: "binary", maxLength: 20 }), fc.constant(""));

/** Values that have broken parsers before: prototype keys, numbers that are not, JSON-ish text. */
const SPECIALS = ["__proto__", "constructor", "prototype", "toString", "hasOwnProperty", "null", "undefined", "NaN", "Infinity", "-1", "0", "1e309", "0x", "true", "[]", "{}", "[object Object]", " ", "\t"];

/** Percent-encoding garbage, sent raw (not encoded again): truncated and invalid escapes, overlong and surrogate UTF-8, NUL. */
const PERCENT = ["%", "%%", "%Z", "%ZZ", "%0", "%00", "%FF", "%C3%28", "%E2%82", "%ED%A0%80", "%F4%90%80%80", "%C0%AF", "%2525", "%u0041", "+", "%2B", "%20", "&", "=", "==", ";", "a;b", "%26", "%3D", "#"];

/** A string that is long as a whole: a repeated character or a repeated chunk, at and past the limits that exist (2048-character query strings, 4 KiB). */
const longString = fc
  .tuple(fc.constantFrom(1, 2, 2047, 2048, 2049, 3000, 4097, 5000), fc.oneof(fc.constantFrom("A", "a", "1", ",", "%41", "é", "€"), fc.string({ minLength: 1, maxLength: 8 })))
  .map(([n, chunk]) => chunk.repeat(Math.ceil(n / chunk.length)).slice(0, Math.max(n, chunk.length)));

// ---------------------------------------------------------------------------------------------
// What a query schema declares, read off zod's definitions (so a new parameter brings its own)

interface Declared {
  literals: string[];
  /** Length bounds of the strings it takes. */
  stringBounds: number[];
  /** Item-count bounds of a list (a comma-separated value arrives as a list), and its items' length bounds. */
  listBounds: number[];
  itemBounds: number[];
}

type ZodInternals = { _zod?: { def?: Record<string, unknown> } };

function declaredOf(schema: unknown, into: Declared = { literals: [], stringBounds: [], listBounds: [], itemBounds: [] }, inList = false, depth = 0): Declared {
  const def = (schema as ZodInternals)?._zod?.def;
  if (!def || depth > 12) return into;
  const checks = Array.isArray(def["checks"]) ? (def["checks"] as ZodInternals[]) : [];
  for (const check of checks) {
    const c = check._zod?.def ?? {};
    const n = typeof c["maximum"] === "number" ? c["maximum"] : typeof c["minimum"] === "number" ? c["minimum"] : undefined;
    if (n === undefined || !Number.isFinite(n)) continue;
    if (def["type"] === "array") into.listBounds.push(n);
    else if (inList) into.itemBounds.push(n);
    else into.stringBounds.push(n);
  }
  if (def["type"] === "literal" && Array.isArray(def["values"])) into.literals.push(...(def["values"] as unknown[]).map(String));
  if (def["type"] === "enum" && def["entries"] && typeof def["entries"] === "object") into.literals.push(...Object.values(def["entries"] as object).map(String));
  for (const key of ["innerType", "in", "out"]) if (def[key]) declaredOf(def[key], into, inList, depth + 1);
  if (def["element"]) declaredOf(def["element"], into, true, depth + 1);
  return into;
}

/** Valid values of a parameter by its name, where the catalogue's schema cannot say them (symbols, sectors, chains). */
function knownValues(name: string, v: Vocabulary): fc.Arbitrary<string> | null {
  const sym = fc.constantFrom(...v.symbols);
  switch (name) {
    case "sym":
      return fc.oneof(
        sym,
        sym.map((s) => s.toLowerCase()),
        fc.array(sym, { minLength: 1, maxLength: 10 }).map((l) => l.join(",")),
        fc.array(sym, { minLength: 2, maxLength: 4 }).map((l) => l.join(" , ")),
        fc.constantFrom("ZZZZ", "AAPL", "BTC-USD", "eth-usd", "BRK.B", "A,", ",A"),
      );
    case "etf":
      return fc.oneof(fc.constantFrom(...v.etfs), fc.constantFrom(...v.etfs).map((s) => s.toLowerCase()), sym);
    case "name":
      return fc.oneof(fc.constantFrom(...v.sectors), fc.mixedCase(fc.constantFrom(...v.sectors)), fc.constantFrom(...v.sectors).map((s) => ` ${s} `));
    case "address":
      return fc.oneof(
        evmAddress,
        evmAddress.map((a) => a.toUpperCase()),
        fc.string({ unit: chars("123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"), minLength: 32, maxLength: 44 }),
        fc.string({ unit: chars("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"), minLength: 58, maxLength: 58 }),
      );
    case "date":
      return fc.oneof(fc.constantFrom(...v.dates), fc.constantFrom("2026-11-18", "2026-11-21", "1999-01-01", "2026-02-30", "2026-13-01", "9999-12-31", "2026-1-19"));
    case "days":
      return fc.constantFrom("1", "20", "60", "250", "0", "251", "-1", "1.5", "01", "1e2", " 5");
    case "since":
      return fc.oneof(
        fc.constantFrom(...v.boardHashes),
        fc.constantFrom(...v.boardHashes).map((h) => h.toUpperCase()),
        fc.string({ unit: chars("0123456789abcdef"), minLength: 64, maxLength: 64 }),
        fc.string({ unit: chars("0123456789abcdef"), minLength: 63, maxLength: 65 }),
      );
    case "before":
      return fc.constantFrom("1", "2", "3", "500", "2147483647", "0", "-1", "1.5", "01", "2147483648", "99999999999", "1e2", " 5");
    case "chain":
      return fc.constantFrom("eip155:8453", "eip155:1", "eip155:84532", "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp", "algorand:wGHE2Pwdvd7S12BL5FaOP20EGYesN73k", "eip155", "ab", "a", "EIP155:8453", "eip155:8453 ");
    default:
      return null;
  }
}

/** Values for one declared parameter: valid ones, its boundaries, and garbage. */
function valueOf(name: string, schema: unknown, v: Vocabulary): fc.Arbitrary<RawValue> {
  const d = declaredOf(schema);
  const valid: fc.Arbitrary<string>[] = [];
  if (d.literals.length > 0) valid.push(fc.constantFrom(...d.literals));
  const known = knownValues(name, v);
  if (known) valid.push(known);
  const boundary: fc.Arbitrary<string>[] = [];
  const around = (ns: number[]) => [...new Set(ns.flatMap((n) => [n - 1, n, n + 1]).filter((n) => n >= 0))];
  if (d.stringBounds.length > 0) boundary.push(fc.constantFrom(...around(d.stringBounds)).chain((n) => fc.string({ unit: chars("aZ9-"), minLength: n, maxLength: n })));
  if (d.listBounds.length > 0) {
    const item = known ?? fc.string({ unit: chars("ABCXYZ"), minLength: 1, maxLength: 5 });
    boundary.push(fc.constantFrom(...around(d.listBounds)).chain((n) => fc.array(item, { minLength: n, maxLength: n }).map((l) => l.join(","))));
  }
  if (d.itemBounds.length > 0) boundary.push(fc.constantFrom(...around(d.itemBounds)).map((n) => "Q".repeat(n)));
  if (d.literals.length > 0) boundary.push(fc.constantFrom(...d.literals).chain((l) => fc.constantFrom(` ${l}`, `${l} `, `0${l}`, `${l}${l}`, l.toUpperCase(), "")));
  return fc.oneof(
    ...(valid.length > 0 ? [{ weight: 6, arbitrary: fc.oneof(...valid).map(encoded) }] : []),
    ...(boundary.length > 0 ? [{ weight: 3, arbitrary: fc.oneof(...boundary).map(encoded) }] : []),
    { weight: 3, arbitrary: garbageValue },
  );
}

/** A query value and whether it goes out percent-encoded (most) or raw (percent garbage). */
type RawValue = { readonly text: string; readonly raw: boolean };
const encoded = (text: string): RawValue => ({ text, raw: false });

const garbageValue: fc.Arbitrary<RawValue> = fc.oneof(
  { weight: 3, arbitrary: anyString.map(encoded) },
  { weight: 2, arbitrary: fc.constantFrom(...PERCENT).map((text) => ({ text, raw: true })) },
  { weight: 1, arbitrary: fc.tuple(fc.string({ maxLength: 6 }), fc.constantFrom(...PERCENT), fc.string({ maxLength: 6 })).map(([a, p, b]) => ({ text: `${encodeURIComponent(a)}${p}${encodeURIComponent(b)}`, raw: true })) },
  { weight: 2, arbitrary: fc.constantFrom(...SPECIALS).map(encoded) },
  { weight: 1, arbitrary: longString.map(encoded) },
  { weight: 1, arbitrary: fc.string({ unit: "binary", minLength: 1, maxLength: 300 }).map(encoded) },
);

/** Lone surrogates replaced by U+FFFD, as the URL parser would send them. */
const wellFormed = (text: string) => text.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, "\uFFFD");

/** Encodes a query component (encodeURIComponent refuses lone surrogates). */
const enc = (text: string) => encodeURIComponent(wellFormed(text));
const render = (v: RawValue) => (v.raw ? v.text.replace(/#/g, "%23") : enc(v.text));

/** A query string for a route: its declared parameters (valid, boundary, garbage; repeated; in odd forms) and unknown ones. */
export function queryOf(route: Route, v: Vocabulary): fc.Arbitrary<string | null> {
  const shape = route.query.shape as Record<string, unknown>;
  const names = Object.keys(shape);
  const declaredPair = names.length === 0 ? [] : [{ weight: 6, arbitrary: fc.constantFrom(...names).chain((n) => valueOf(n, shape[n], v).map((value) => ({ name: n, value }))) }];
  const oddName = names.length === 0 ? [] : [{ weight: 1, arbitrary: fc.tuple(fc.constantFrom(...names), fc.constantFrom("[]", "[0]", "[a]", ".x", "%00")).map(([n, s]) => `${n}${s}`) }];
  const unknownName = fc.oneof(
    ...oddName,
    { weight: 2, arbitrary: fc.constantFrom("x", "q", "page", "limit", "preview", "sample", "sym", "callback", "format", ...SPECIALS) },
    { weight: 1, arbitrary: anyString },
  );
  const pair = fc.oneof(...declaredPair, { weight: 2, arbitrary: fc.tuple(unknownName, fc.oneof(garbageValue, fc.constant(encoded("1")))).map(([name, value]) => ({ name, value })) });
  const rendered = fc.tuple(pair, fc.constantFrom("=", "=", "=", "", "==")).map(([p, eq]) => (eq === "" ? enc(p.name) : `${enc(p.name)}${eq}${render(p.value)}`));
  const list = fc.array(rendered, { maxLength: 4 });
  // A declared parameter twice: a list (?sym=a&sym=b) is read as one list (sym=a,b), any other
  // is refused ("must be given once"), never guessed at. Send that often.
  const repeated = names.length === 0 ? [] : [{ weight: 1, arbitrary: fc.tuple(declaredPair[0]!.arbitrary, declaredPair[0]!.arbitrary).map(([a, b]) => `${enc(a.name)}=${render(a.value)}&${enc(a.name)}=${render(b.value)}`) }];
  const freeVariant = route.freeVariant ? [{ weight: 2, arbitrary: fc.constant(`${route.freeVariant.param}=${route.freeVariant.value}`) }] : [];
  return fc.oneof(
    { weight: 2, arbitrary: fc.constant(null) },
    { weight: 1, arbitrary: fc.constant("") },
    { weight: 8, arbitrary: fc.tuple(list, fc.constantFrom("&", "&", "&", "&&", ";")).map(([l, sep]) => l.join(sep)) },
    ...repeated,
    ...freeVariant,
  );
}

// ---------------------------------------------------------------------------------------------
// Credential headers

function tamper(s: string): fc.Arbitrary<string> {
  if (s.length === 0) return fc.constant("x");
  return fc.tuple(fc.nat({ max: s.length - 1 }), fc.constantFrom("A", "b", "0", "_", "-", ".", "")).map(([i, c]) => {
    const replaced = s.slice(0, i) + (s[i] === c ? "Z" : c) + s.slice(i + 1);
    return replaced === s ? `${s}x` : replaced;
  });
}

const fromList = (list: readonly string[]) => (list.length > 0 ? fc.constantFrom(...list) : fc.constant("none"));

/** X-Board-Key and X-License-Key: real keys, tampered ones, key-like garbage and lengths around the 256 limit. */
function keyValue(real: readonly string[]): fc.Arbitrary<string> {
  const r = fromList(real);
  return fc.oneof(
    { weight: 3, arbitrary: r },
    { weight: 3, arbitrary: r.chain(tamper) },
    { weight: 1, arbitrary: r.map((k) => ` ${k} `) },
    { weight: 1, arbitrary: r.map((k) => k.toUpperCase()) },
    { weight: 2, arbitrary: fc.tuple(fc.constantFrom("bk_", "blk_", "bwk_", "sk_", ""), fc.string({ unit: chars(B64URL), maxLength: 60 })).map(([p, s]) => p + s) },
    { weight: 1, arbitrary: fc.constantFrom(255, 256, 257, 1000).map((n) => "k".repeat(n)) },
    { weight: 2, arbitrary: headerText(120) },
  );
}

const jsonB64url = (v: unknown) => b64url(JSON.stringify(v));

/** Authorization: Bearer (real, tampered, malformed JWTs with every alg trick), Basic, Payment (MPP), and other schemes. */
function authorizationValue(route: Route, v: Vocabulary): fc.Arbitrary<string> {
  const claims = fc.record(
    {
      iss: fc.constantFrom(v.base, new URL(v.base).origin, "https://evil.example", ""),
      aud: fc.constantFrom(v.base, new URL(v.base).origin, "board", ""),
      sub: fc.oneof(fromList(v.clients.map((c) => c.id)), fc.string({ maxLength: 20 })),
      scope: fc.constantFrom("board:live", "admin", ""),
      exp: fc.oneof(fc.integer({ min: 0, max: 2 ** 40 }), fc.constant(Math.floor(Date.now() / 1000) + 600)),
      iat: fc.integer({ min: 0, max: 2 ** 40 }),
      license_id: fc.uuid(),
    },
    { requiredKeys: [] },
  );
  const jwtHeader = fc.record(
    { alg: fc.constantFrom("ES256", "none", "HS256", "RS256", "ES384", "EdDSA", ""), kid: fc.oneof(fromList(v.kids), fc.string({ maxLength: 10 })), typ: fc.constantFrom("at+jwt", "JWT", "") },
    { requiredKeys: ["alg"] },
  );
  const jwt = fc
    .tuple(jwtHeader, claims, fc.oneof(fc.uint8Array({ minLength: 64, maxLength: 64 }), fc.uint8Array({ maxLength: 10 })))
    .map(([h, c, sig]) => `${jsonB64url(h)}.${jsonB64url(c)}.${b64url(sig)}`);
  const bearerToken = fc.oneof(
    { weight: 2, arbitrary: fromList(v.bearers) },
    { weight: 3, arbitrary: fromList(v.bearers).chain(tamper) },
    { weight: 4, arbitrary: jwt },
    { weight: 1, arbitrary: fc.constantFrom("a.b.c", "..", "e30.e30.", "e30.e30", "x") },
    { weight: 1, arbitrary: fc.string({ unit: chars(`${B64URL}.`), minLength: 1, maxLength: 300 }) },
    { weight: 1, arbitrary: fc.constantFrom(4095, 4096, 4097, 6000).map((n) => "e".repeat(n)) },
  );
  const basicPair = fc.oneof(
    fc.constantFrom(...(v.clients.length > 0 ? v.clients : [{ id: "c", secret: "s" }])).map((c) => `${c.id}:${c.secret}`),
    fc.tuple(anyString, anyString).map(([a, b]) => `${a}:${b}`),
    fc.constantFrom("nocolon", ":", "%ZZ:x", "x:%E2%82", "%:%", "a+b:c%20d"),
    fc.constant(`${"i".repeat(300)}:${"s".repeat(300)}`),
  );
  return fc.oneof(
    { weight: 6, arbitrary: fc.tuple(fc.constantFrom("Bearer ", "bearer ", "Bearer\t", "BEARER  "), bearerToken).map(([s, t]) => s + t) },
    { weight: 1, arbitrary: fc.constantFrom("Bearer", "Bearer ", "Bearer a b", "Bearer  x  y", "Bearer,") },
    { weight: 2, arbitrary: fc.tuple(fc.constantFrom("Basic ", "basic "), fc.oneof(basicPair.map(b64), randomBase64, headerText(40))).map(([s, t]) => s + t) },
    { weight: 5, arbitrary: mppCredential(route, v).map((c) => `Payment ${c}`) },
    { weight: 1, arbitrary: fc.constantFrom("Payment", "Payment ", "payment x", "Payment id=\"x\"") },
    { weight: 1, arbitrary: headerText(200) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom("Digest ", "Negotiate ", "DPoP ", "Token ", "L402 "), headerText(60)).map(([s, t]) => s + t) },
  );
}

/** An MPP credential: for the route's real challenge (or another route's) with a forged payload, for a tampered challenge, or garbage in the credential's envelope. */
function mppCredential(route: Route, v: Vocabulary): fc.Arbitrary<string> {
  const challenges = [...v.mppChallenges.values()];
  const own = v.mppChallenges.get(route.path);
  const fields = fc.record({
      type: fc.oneof({ weight: 8, arbitrary: fc.constant("authorization") }, { weight: 1, arbitrary: fc.constantFrom("transaction", "hash", "x") }),
      from: evmAddress,
      to: fc.oneof({ weight: 1, arbitrary: evmAddress }, { weight: 3, arbitrary: fc.constant((challenges[0]?.request["recipient"] as string | undefined) ?? "0x") }),
      value: fc.oneof({ weight: 4, arbitrary: fc.constantFrom("5000", "10000", "20000", "250000") }, { weight: 1, arbitrary: fc.constantFrom("0", "-1", "1e6", "1.5") }, { weight: 1, arbitrary: fc.bigInt({ min: 0n, max: 2n ** 256n }).map(String) }),
      validAfter: fc.oneof({ weight: 6, arbitrary: fc.constant("0") }, { weight: 1, arbitrary: fc.constantFrom("99999999999", "x") }),
      validBefore: fc.oneof({ weight: 6, arbitrary: fc.constant(String(Math.floor(Date.now() / 1000) + 300)) }, { weight: 1, arbitrary: fc.constantFrom("0", "1", "x") }),
      nonce: hexBytes(32),
      signature: fc.oneof({ weight: 6, arbitrary: hexBytes(65) }, { weight: 1, arbitrary: hexBytes(0, 70) }, { weight: 1, arbitrary: fc.string({ maxLength: 20 }) }),
    });
  // Mostly every field (so the signature itself is checked), sometimes one missing.
  const payload = fc.tuple(fields, fc.oneof({ weight: 6, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.constantFrom("from", "to", "value", "validAfter", "validBefore", "nonce", "signature") })).map(([f, drop]) => {
    const p: Record<string, unknown> = { ...f };
    if (drop !== null) delete p[drop];
    return p;
  });
  const forged =
    challenges.length === 0
      ? []
      : [
          {
            weight: 6,
            arbitrary: fc
              .tuple(
                own ? fc.oneof({ weight: 6, arbitrary: fc.constant(own) }, { weight: 1, arbitrary: fc.constantFrom(...challenges) }) : fc.constantFrom(...challenges),
                payload,
                fc.oneof({ weight: 6, arbitrary: fc.constant("as issued") }, { weight: 1, arbitrary: fc.constantFrom("id", "expires", "realm", "request") }),
                evmAddress,
                fc.boolean(),
                fc.oneof({ weight: 4, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
              )
              .map(([challenge, forgedPayload, change, source, withSource, boundNonce]) => {
                // The authorization's nonce is the challenge's hash when a client pays it: mostly so, so the signature is what fails.
                const p = boundNonce && "nonce" in forgedPayload ? { ...forgedPayload, nonce: challengeHash(challenge) } : forgedPayload;
                const c: Challenge.Challenge =
                  change === "id"
                    ? { ...challenge, id: b64url(source) }
                    : change === "expires"
                      ? { ...challenge, expires: "2020-01-01T00:00:00.000Z" }
                      : change === "realm"
                        ? { ...challenge, realm: "evil.example" }
                        : change === "request"
                          ? { ...challenge, request: { ...challenge.request, amount: "1" } }
                          : challenge;
                // serialize() gives the whole header value; the caller puts the scheme back.
                return Credential.serialize({ challenge: c, payload: p, ...(withSource ? { source: `did:pkh:eip155:8453:${source}` } : {}) }).replace(/^Payment\s+/, "");
              }),
          },
        ];
  return fc.oneof(
    ...forged,
    { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((j) => b64url(JSON.stringify(j) ?? "null")) },
    { weight: 1, arbitrary: fc.record({ challenge: fc.jsonValue({ maxDepth: 2 }), payload: fc.jsonValue({ maxDepth: 2 }) }).map(jsonB64url) },
    { weight: 1, arbitrary: fc.string({ unit: chars(`${B64URL}=+/`), maxLength: 200 }) },
    { weight: 1, arbitrary: headerText(100) },
  );
}

/** SIGN-IN-WITH-X: real sessions, tampered ones, the real challenge signed wrongly or altered, random base64 and JSON. */
function siwxValue(v: Vocabulary): fc.Arbitrary<string> {
  const info = v.siwxInfo;
  const plausible = fc
    .tuple(
      fc.constantFrom("as issued", "as issued", "domain", "uri", "nonce", "issuedAt", "expirationTime", "chainId", "type", "version", "missing"),
      fc.oneof(evmAddress, fc.string({ maxLength: 50 })),
      fc.oneof(hexBytes(65), hexBytes(0, 70), fc.string({ unit: chars(B64URL), maxLength: 90 })),
      fc.string({ maxLength: 30 }),
      fc.constantFrom("eip155:8453", "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp", "algorand:wGHE2Pwdvd7S12BL5FaOP20EGYesN73k", "eip155:1", "x"),
    )
    .map(([change, address, signature, junk, chainId]) => {
      const p: Record<string, unknown> = { ...info, address, chainId, type: chainId.startsWith("eip155") ? "eip191" : "ed25519", signature };
      if (change === "missing") delete p["nonce"];
      else if (change === "issuedAt" || change === "expirationTime") p[change] = junk.length % 2 ? "2020-01-01T00:00:00.000Z" : junk;
      else if (change === "type") p["type"] = junk;
      else if (change !== "as issued" && change !== "chainId") p[change] = junk;
      return b64(JSON.stringify(p));
    });
  const real = fromList(v.siwx);
  return fc.oneof(
    { weight: 2, arbitrary: real },
    { weight: 2, arbitrary: real.chain(tamper) },
    { weight: 2, arbitrary: real.map((h) => JSON.parse(Buffer.from(h, "base64").toString("utf8")) as Record<string, unknown>).chain((p) =>
        fc.constantFrom("domain", "uri", "nonce", "address", "expirationTime", "signature").map((k) => b64(JSON.stringify({ ...p, [k]: `${String(p[k])}0` }))),
      ) },
    { weight: 5, arbitrary: plausible },
    { weight: 2, arbitrary: randomBase64 },
    { weight: 2, arbitrary: randomJsonBase64 },
    { weight: 1, arbitrary: fc.constantFrom(8191, 8192, 8193, 9000).map((n) => "A".repeat(n)) },
    { weight: 1, arbitrary: headerText(200) },
  );
}

/** An EIP-3009 authorization as x402's exact EVM scheme carries it, with values right, wrong or nonsense. */
function eip3009(payTo: string, amount: string) {
  const now = Math.floor(Date.now() / 1000);
  return fc
    .record({
      from: evmAddress,
      to: fc.oneof({ weight: 3, arbitrary: fc.constant(payTo) }, { weight: 1, arbitrary: evmAddress }),
      value: fc.oneof({ weight: 6, arbitrary: fc.constant(amount) }, { weight: 1, arbitrary: fc.constantFrom("0", "1", "-5", "1.5", "99999999999999999999999999999999999999999999999999999999999999999999999999999999") }),
      validAfter: fc.oneof({ weight: 6, arbitrary: fc.constant("0") }, { weight: 1, arbitrary: fc.constantFrom(String(now - 60), String(now + 3600), "x", "-1", "") }),
      validBefore: fc.oneof({ weight: 6, arbitrary: fc.constant(String(now + 600)) }, { weight: 1, arbitrary: fc.constantFrom(String(now - 60), "0", "99999999999999999999", "1e12") }),
      nonce: fc.oneof({ weight: 6, arbitrary: hexBytes(32) }, { weight: 1, arbitrary: hexBytes(0, 40) }),
    })
    .chain((authorization) =>
      fc.record({ authorization: fc.constant(authorization), signature: fc.oneof({ weight: 8, arbitrary: hexBytes(65) }, { weight: 1, arbitrary: hexBytes(0, 100) }, { weight: 1, arbitrary: fc.string({ maxLength: 20 }) }) }),
    );
}

/** PAYMENT-SIGNATURE and X-PAYMENT: an x402 payload for this route's real offer (forged signature, one term changed), v1 payloads, random base64 and JSON. */
function paymentValue(route: Route, v: Vocabulary): fc.Arbitrary<string> {
  const offers = v.offers.get(route.path) ?? [...v.offers.values()][0];
  const accepts = offers?.accepts ?? [];
  const v2 =
    accepts.length === 0
      ? []
      : [
          {
            weight: 6,
            arbitrary: fc
              .tuple(
                fc.constantFrom(...accepts),
                fc.oneof({ weight: 8, arbitrary: fc.constant("as offered") }, { weight: 1, arbitrary: fc.constantFrom("network", "scheme", "asset", "payTo", "amount", "extra") }),
                fc.oneof({ weight: 8, arbitrary: fc.constantFrom("own", "absent") }, { weight: 1, arbitrary: fc.constantFrom("other route", "not a url") }),
              )
              .chain(([accepted, change, resource]) => {
                const a: Record<string, unknown> = { ...accepted };
                if (change === "network") a["network"] = "eip155:1";
                if (change === "scheme") a["scheme"] = "upto";
                if (change === "asset") a["asset"] = "0x0000000000000000000000000000000000000001";
                if (change === "payTo") a["payTo"] = "0x000000000000000000000000000000000000dEaD";
                if (change === "amount") a["amount"] = "1";
                if (change === "extra") a["extra"] = { name: "GatewayWalletBatched", version: "1" };
                const res =
                  resource === "own" ? offers!.resource : resource === "other route" ? { ...offers!.resource, url: `${v.base}/api/board/free` } : resource === "not a url" ? { url: "::" } : undefined;
                return eip3009(String(a["payTo"]), String(a["amount"])).map((payload) => b64(JSON.stringify({ x402Version: 2, ...(res ? { resource: res } : {}), accepted: a, payload })));
              }),
          },
        ];
  const first = accepts[0];
  const v1 = fc
    .tuple(fc.constantFrom("base", "base-sepolia", "solana", "eip155:8453", "x"), fc.constantFrom("exact", "upto"), eip3009(String(first?.["payTo"] ?? "0x"), String(first?.["amount"] ?? "1")))
    .map(([network, scheme, payload]) => b64(JSON.stringify({ x402Version: 1, scheme, network, payload })));
  return fc.oneof(
    ...v2,
    { weight: 2, arbitrary: v1 },
    { weight: 2, arbitrary: randomBase64 },
    { weight: 2, arbitrary: randomJsonBase64 },
    { weight: 1, arbitrary: fc.record({ x402Version: fc.constantFrom(1, 2, 3, "2"), accepted: fc.jsonValue({ maxDepth: 2 }), payload: fc.jsonValue({ maxDepth: 2 }) }, { requiredKeys: ["x402Version"] }).map((p) => b64(JSON.stringify(p))) },
    { weight: 1, arbitrary: headerText(200) },
    { weight: 1, arbitrary: fc.constantFrom(6000, 9000).map((n) => "A".repeat(n)) },
  );
}

/** Headers other than credentials that reach code: conditional reads and content negotiation. */
function otherHeaders(v: Vocabulary): Record<string, fc.Arbitrary<string>> {
  return {
    "if-none-match": fc.oneof(fromList(v.etags), fc.constantFrom("*", 'W/"x"', '"', ""), headerText(100), fc.constantFrom(511, 512, 513, 2000).map((n) => `"${"e".repeat(n - 2)}"`)),
    "accept-encoding": fc.oneof(fc.constantFrom("gzip", "identity", "br", "gzip;q=0", "*", "identity;q=0, *;q=0", "deflate, gzip;q=0.5"), headerText(40)),
    accept: fc.oneof(fc.constantFrom("application/json", "text/html", "*/*", "application/json, text/event-stream"), headerText(40)),
  };
}

/** The credential headers of the API, each with its own values; most requests carry none or one. */
export function headersOf(route: Route, v: Vocabulary): fc.Arbitrary<Record<string, string>> {
  const credential: Record<string, fc.Arbitrary<string>> = {
    "x-board-key": keyValue(v.freeKeys),
    "x-license-key": keyValue(v.licenseKeys),
    authorization: authorizationValue(route, v),
    "sign-in-with-x": siwxValue(v),
    "payment-signature": paymentValue(route, v),
    "x-payment": paymentValue(route, v),
  };
  const other = otherHeaders(v);
  const one = (from: Record<string, fc.Arbitrary<string>>) => fc.constantFrom(...Object.keys(from)).chain((name) => from[name]!.map((value) => ({ [name]: value })));
  const some = (from: Record<string, fc.Arbitrary<string>>) => fc.record(from, { requiredKeys: [] }).map((r) => r as Record<string, string>);
  return fc
    .tuple(
      fc.oneof({ weight: 3, arbitrary: fc.constant({}) }, { weight: 5, arbitrary: one(credential) }, { weight: 2, arbitrary: some(credential) }),
      fc.oneof({ weight: 6, arbitrary: fc.constant({}) }, { weight: 1, arbitrary: one(other) }),
    )
    .map(([c, o]) => ({ ...o, ...c }));
}

// ---------------------------------------------------------------------------------------------
// Bodies of the POST routes

const CONTENT_TYPES = ["application/json", "application/json; charset=utf-8", "APPLICATION/JSON", "application/x-www-form-urlencoded", "text/plain", "multipart/form-data; boundary=x", "", "application/json;"];
const tooLarge = fc.constantFrom(4096, 4097, 6000).map((n) => `{"email":"${"a".repeat(n)}@example.com"}`);

function jsonBodyOf(route: Route, v: Vocabulary): fc.Arbitrary<string> {
  if (route.path === "/api/key") {
    const email = fc.oneof(fc.emailAddress(), fc.constantFrom("a@b", "@", "x@example.com ", " x@example.com", "x@@example.com", ""), fc.constant(`${"a".repeat(250)}@example.com`), fc.jsonValue({ maxDepth: 1 }));
    return fc.oneof({ weight: 4, arbitrary: email.map((e) => JSON.stringify({ email: e })) }, { weight: 1, arbitrary: fc.record({ email: email, extra: fc.jsonValue({ maxDepth: 2 }) }).map((b) => JSON.stringify(b)) });
  }
  if (route.path === "/api/auth/verify") {
    return siwxValue(v)
      .map((h) => Buffer.from(h, "base64").toString("utf8"))
      .map((text) => (text.startsWith("{") ? text : JSON.stringify({ signature: text })));
  }
  if (route.kind === "mcp") {
    const tool = fc.oneof(fc.constantFrom(...MCP_TOOLS.map((t) => t.name)), fc.string({ maxLength: 20 }));
    const message = fc.oneof(
      fc.constant({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "fuzz", version: "1" } } }),
      fc.constant({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
      fc.record({ jsonrpc: fc.constant("2.0"), id: fc.oneof(fc.nat(), fc.string({ maxLength: 5 })), method: fc.constant("tools/call"), params: fc.record({ name: tool, arguments: fc.dictionary(fc.constantFrom("sym", "name", "etf", "preview"), fc.jsonValue({ maxDepth: 1 })) }, { requiredKeys: ["name"] }) }),
      fc.record({ jsonrpc: fc.constantFrom("2.0", "1.0"), id: fc.jsonValue({ maxDepth: 1 }), method: fc.string({ maxLength: 20 }), params: fc.jsonValue({ maxDepth: 2 }) }, { requiredKeys: [] }),
      fc.constant({ jsonrpc: "2.0", method: "notifications/initialized" }),
    );
    return fc.oneof(message.map((m) => JSON.stringify(m)), fc.array(message, { maxLength: 3 }).map((m) => JSON.stringify(m)));
  }
  return fc.jsonValue({ maxDepth: 2 }).map((j) => JSON.stringify(j) ?? "null");
}

function formBodyOf(v: Vocabulary): fc.Arbitrary<string> {
  const client = fc.constantFrom(...(v.clients.length > 0 ? v.clients : [{ id: "c", secret: "s" }]));
  const field = (name: string, values: fc.Arbitrary<string>) => fc.option(values.map((x) => `${name}=${enc(x)}`), { nil: undefined });
  const fields = fc
    .tuple(
      client,
      fc.constantFrom("real", "real", "wrong", "garbage"),
      field("grant_type", fc.oneof(fc.constantFrom("client_credentials", "client_credentials", "password", "authorization_code", "", "CLIENT_CREDENTIALS"), fc.constantFrom(200, 201, 300).map((n) => "g".repeat(n)))),
      field("scope", fc.oneof(fc.constantFrom("board:live", "board:live", "admin", "", "board:live admin"), fc.constantFrom(500, 501).map((n) => "s".repeat(n)))),
      fc.boolean(),
    )
    .map(([c, which, grant, scope, withClient]) => {
      const id = which === "garbage" ? "x".repeat(257) : c.id;
      const secret = which === "real" ? c.secret : which === "wrong" ? `${c.secret}x` : "y".repeat(257);
      return [grant, scope, ...(withClient ? [`client_id=${encodeURIComponent(id)}`, `client_secret=${encodeURIComponent(secret)}`] : [])].filter((x) => x !== undefined).join("&");
    });
  return fc.oneof(
    { weight: 6, arbitrary: fields },
    { weight: 1, arbitrary: fields.map((f) => `${f}&grant_type=client_credentials`) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom(10, 199, 200, 201, 300), fc.constantFrom("", "=1")).map(([n, eq]) => `${"p".repeat(n)}${eq}&${"p".repeat(n)}${eq}`) },
    { weight: 1, arbitrary: fc.array(fc.tuple(anyString, anyString).map(([a, b]) => `${enc(a)}=${enc(b)}`), { maxLength: 4 }).map((l) => l.join("&")) },
    { weight: 1, arbitrary: fc.constantFrom(...PERCENT).map((p) => `grant_type=client_credentials&client_id=${p}`) },
  );
}

/** A POST body with its content type: what the route reads (JSON or a form), the other kind, garbage, or too large. */
export function bodyOf(route: Route, v: Vocabulary): fc.Arbitrary<{ contentType: string | null; body: string }> {
  const own = route.path === "/oauth/token" ? "application/x-www-form-urlencoded" : "application/json";
  const main = route.path === "/oauth/token" ? formBodyOf(v) : jsonBodyOf(route, v);
  const garbage = fc.oneof(fc.string({ maxLength: 200 }), fc.string({ unit: "binary", maxLength: 100 }), fc.constantFrom("", "{", "null", "[]", "{}", "1", '"x"', "{\"__proto__\":{\"x\":1}}"), tooLarge);
  return fc.oneof(
    { weight: 6, arbitrary: main.map((body) => ({ contentType: own, body })) },
    { weight: 2, arbitrary: garbage.map((body) => ({ contentType: own, body })) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...CONTENT_TYPES, null), fc.oneof(main, garbage)).map(([contentType, body]) => ({ contentType, body })) },
  );
}

// ---------------------------------------------------------------------------------------------
// Whole requests

const WRONG_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];

/** The request line and headers stay under Node's 16 KiB header limit (past it Node answers 431 before any route runs). */
const HEADER_BUDGET = 15_000;

function fit(r: FuzzRequest): FuzzRequest {
  const headers = { ...r.headers };
  const size = () => Object.entries(headers).reduce((n, [k, val]) => n + k.length + val.length + 4, 0);
  while (size() > HEADER_BUDGET - 2000) {
    const longest = Object.keys(headers).sort((a, b) => headers[b]!.length - headers[a]!.length)[0]!;
    headers[longest] = headers[longest]!.slice(0, Math.floor(headers[longest]!.length / 2));
  }
  const room = HEADER_BUDGET - size() - r.path.length - 300;
  const query = r.query !== null && r.query.length > room ? r.query.slice(0, Math.max(0, room)) : r.query;
  return printable({ ...r, headers, query });
}

const cut = (s: string, n: number) => (s.length > n ? `${s.slice(0, n)}...(${s.length} chars)` : s);

/** fast-check prints a counterexample with this: long values cut, so a report stays readable. */
function printable(r: FuzzRequest): FuzzRequest {
  const short = () => ({
    method: r.method,
    path: r.path,
    query: r.query === null ? null : cut(r.query, 200),
    headers: Object.fromEntries(Object.entries(r.headers).map(([k, val]) => [k, cut(val, 120)])),
    ...(r.body !== undefined ? { body: cut(r.body, 200) } : {}),
  });
  return Object.defineProperty(r, fc.toStringMethod, { value: () => JSON.stringify(short()), enumerable: false });
}

/** Path spellings Express maps to the same route (case, trailing slash) and one it does not. */
function pathOf(route: Route): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 30, arbitrary: fc.constant(route.path) },
    { weight: 1, arbitrary: fc.constant(route.path === "/" ? "/" : `${route.path}/`) },
    { weight: 1, arbitrary: fc.constant(route.path.toUpperCase()) },
    { weight: 1, arbitrary: fc.constantFrom(`${route.path === "/" ? "" : route.path}/x`, `${route.path}%00`, `${route.path}%2F..`) },
  );
}

/** A request to one route of the catalogue. */
export function requestTo(route: Route, v: Vocabulary): fc.Arbitrary<FuzzRequest> {
  const own = route.methods.includes("GET") ? [...route.methods, "HEAD"] : [...route.methods];
  const method = fc.oneof(
    { weight: 17, arbitrary: fc.constantFrom(...route.methods) },
    { weight: 1, arbitrary: fc.constantFrom(...own) },
    { weight: 2, arbitrary: fc.constantFrom(...WRONG_METHODS.filter((m) => !own.includes(m))) },
  );
  return fc
    .tuple(method, pathOf(route), queryOf(route, v), headersOf(route, v), bodyOf(route, v))
    .map(([m, path, query, headers, b]) => {
      const withBody = m === "POST" || m === "PUT" || m === "PATCH";
      const h = { ...headers };
      if (withBody && b.contentType !== null) h["content-type"] = b.contentType;
      if (route.kind === "mcp" && h["accept"] === undefined) h["accept"] = "application/json, text/event-stream";
      return fit({ route: route.path, method: m, path, query, headers: h, ...(withBody ? { body: b.body } : {}) });
    });
}

/**
 * A request to any route of the catalogue: the routes that reach the most code (paid reads,
 * the live tier, the key and token endpoints) are drawn more often.
 */
export function requestArb(routes: readonly Route[], v: Vocabulary): fc.Arbitrary<FuzzRequest> {
  const weight = (r: Route) => (r.kind === "paid" ? 3 : r.kind === "live" ? 2 : r.methods.includes("POST") ? 3 : r.kind === "auth" && Object.keys(r.query.shape).length > 0 ? 2 : 1);
  return fc.oneof(...routes.map((r) => ({ weight: weight(r), arbitrary: requestTo(r, v) })));
}
