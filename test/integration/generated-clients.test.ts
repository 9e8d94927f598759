import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { HoldView, NameView, ROUTE_BY_PATH } from "@board/proto";
import { startEvmChain, type EvmChain } from "@board/test-chains/evm";
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import type { PaymentRequired } from "@x402/core/types";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { wrapFetchWithPayment, x402Client } from "@x402/fetch";
import openapiTS, { astToString } from "openapi-typescript";
import type { Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Stack } from "./harness.js";

// Clients nobody here wrote, generated from the running stack's /openapi.json at test time
// (offline: from the document saved to a temp dir): openapi-typescript's types with
// openapi-fetch and its default query serializer (a list as sym=A&sym=B, the style
// declared in the document notwithstanding), and @hey-api/openapi-ts's client (which reads
// the declared style: sym=A,B). Both read a free-tier route and buy a paid one with two
// symbols, and are answered as the comma list is.

const run = promisify(execFile);
const require = createRequire(import.meta.url);
const REPO = resolve(import.meta.dirname, "../..");

const stack = new Stack();
let chain: EvmChain;
const payTo = privateKeyToAccount(generatePrivateKey()).address;
let dir = "";
let syms: [string, string];

/** What each generated client's wrapper (written below, typechecked, then imported) answers. */
interface Answer {
  status: number;
  headers: Headers;
  body: unknown;
}
interface GeneratedClient {
  hold(sym: string[], key: string): Promise<Answer>;
  name(sym: string[], headers?: Record<string, string>): Promise<Answer>;
}
type MakeClient = (baseUrl: string, fetchImpl: typeof fetch) => GeneratedClient;
let openapiFetch: MakeClient;
let heyApi: MakeClient;

// The calls a user of each generated client writes; they must typecheck against the generated types.
const OPENAPI_FETCH_CLIENT = `
import createClient from "openapi-fetch";
import type { paths } from "./schema";

export function makeClient(baseUrl: string, fetchImpl: typeof fetch) {
  const client = createClient<paths>({ baseUrl, fetch: fetchImpl });
  const answer = async (r: { response: Response; data?: unknown; error?: unknown }) => ({ status: r.response.status, headers: r.response.headers, body: r.data ?? r.error });
  return {
    hold: async (sym: string[], key: string) => answer(await client.GET("/api/board/hold", { params: { query: { sym } }, headers: { "X-Board-Key": key } })),
    name: async (sym: string[], headers: Record<string, string> = {}) => answer(await client.GET("/api/board/name", { params: { query: { sym } }, headers })),
  };
}
`;
const HEY_API_CLIENT = `
import { createClient, createConfig } from "./hey/client";
import { getApiBoardHold, getApiBoardName } from "./hey/sdk.gen";

export function makeClient(baseUrl: string, fetchImpl: typeof fetch) {
  const client = createClient(createConfig({ baseUrl, fetch: fetchImpl }));
  const answer = async (r: { response?: Response; data?: unknown; error?: unknown }) => {
    if (!r.response) throw new Error("no response");
    return { status: r.response.status, headers: r.response.headers, body: r.data ?? r.error };
  };
  return {
    hold: async (sym: string[], key: string) => answer(await getApiBoardHold({ client, query: { sym }, headers: { "X-Board-Key": key } })),
    name: async (sym: string[], headers: Record<string, string> = {}) => answer(await getApiBoardName({ client, query: { sym }, headers })),
  };
}
`;

beforeAll(async () => {
  chain = await startEvmChain({ accounts: 4 });
  await stack.start();
  await stack.startBoard();
  await stack.publishTwoDays();
  await stack.startPayments({ PAY_TO_BASE: payTo, BASE_RPC_URL: chain.rpcUrl, BASE_FACILITATOR_KEY: chain.accounts[0] as Hex });
  await stack.untilServing();
  const names = stack.twoDays[1]!.board.names;
  syms = [names[1]!.sym, names[0]!.sym];

  dir = await mkdtemp(join(tmpdir(), "generated-clients-"));
  // The generated code and the wrappers resolve openapi-fetch (and the TypeScript libs) from the repository's install.
  await symlink(join(REPO, "node_modules"), join(dir, "node_modules"), "dir");
  const doc = await (await fetch(`${stack.base}/openapi.json`)).text();
  await writeFile(join(dir, "openapi.json"), doc);

  await writeFile(join(dir, "schema.d.ts"), astToString(await openapiTS(JSON.parse(doc) as Parameters<typeof openapiTS>[0])));
  const heyCli = join(require.resolve("@hey-api/openapi-ts/package.json"), "..", "bin", "run.js");
  await run(process.execPath, [heyCli, "--input", "openapi.json", "--output", "hey", "--silent", "--no-log-file"], { cwd: dir, env: { HOME: dir } });
  await writeFile(join(dir, "openapi-fetch-client.ts"), OPENAPI_FETCH_CLIENT);
  await writeFile(join(dir, "hey-api-client.ts"), HEY_API_CLIENT);

  // Typechecked as a user's project would be, strict.
  const compilerOptions = { noEmit: true, strict: true, target: "es2022", module: "preserve", moduleResolution: "bundler", lib: ["es2022", "dom", "dom.iterable"], types: [], skipLibCheck: true };
  await writeFile(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions, files: ["openapi-fetch-client.ts", "hey-api-client.ts"] }));
  try {
    await run(process.execPath, [require.resolve("typescript/bin/tsc"), "-p", "tsconfig.json"], { cwd: dir });
  } catch (err) {
    throw new Error(`the generated clients do not typecheck:\n${(err as { stdout?: string }).stdout ?? String(err)}`);
  }
  openapiFetch = ((await import(pathToFileURL(join(dir, "openapi-fetch-client.ts")).href)) as { makeClient: MakeClient }).makeClient;
  heyApi = ((await import(pathToFileURL(join(dir, "hey-api-client.ts")).href)) as { makeClient: MakeClient }).makeClient;
}, 180_000);

afterAll(async () => {
  await stack.stop();
  await chain?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** A fetch that notes every URL it is asked for (the generated client hands it a Request). */
function recording(inner: typeof fetch = fetch) {
  const urls: URL[] = [];
  const wrapped: typeof fetch = (input, init) => {
    urls.push(new URL(input instanceof Request ? input.url : String(input)));
    return inner(input, init);
  };
  return { urls, fetch: wrapped };
}

/** A fetch that pays a 402 with a fresh funded wallet (x402 v2, exact scheme on the local Base chain). */
async function paying(inner: typeof fetch, usdc: bigint): Promise<typeof fetch> {
  const key = generatePrivateKey();
  await chain.mint(privateKeyToAccount(key).address, usdc);
  return wrapFetchWithPayment(inner, new x402Client().register("eip155:*", new ExactEvmScheme(privateKeyToAccount(key))));
}

async function freeKey(email: string): Promise<string> {
  const res = await fetch(`${stack.base}/api/key`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email }) });
  expect(res.status).toBe(201);
  return ((await res.json()) as { key: string }).key;
}

const PRICE = ROUTE_BY_PATH.get("/api/board/name")!.price!;
const eleven = () => Array.from({ length: 11 }, (_, i) => `S${i}`);
const comma = (path: string, list: readonly string[], headers: Record<string, string> = {}) => fetch(`${stack.base}${path}?sym=${list.join(",")}`, { headers });
const offersOf = (res: Response | Answer): PaymentRequired => decodePaymentRequiredHeader(res.headers.get("payment-required")!);
/** The terms a 402 sells on: what a payment must match (the resource URL is the request's own, and payments binds a payment to its path). */
const terms = (pr: PaymentRequired) => ({ path: new URL(pr.resource.url).pathname, accepts: pr.accepts.map(({ scheme, network, amount, asset, payTo }) => ({ scheme, network, amount, asset, payTo })) });

const CLIENTS = [
  ["openapi-fetch (default serializer: sym repeated)", "openapi-fetch", () => openapiFetch, (url: URL) => url.searchParams.getAll("sym").length === 2],
  ["@hey-api/openapi-ts (the declared style: sym comma-separated)", "hey-api", () => heyApi, (url: URL) => url.searchParams.getAll("sym").length === 1 && url.searchParams.get("sym") === syms.join(",")],
] as const;

describe.each(CLIENTS)("%s", (_label, id, client, spelledAsExpected) => {
  it("reads a free-tier route (hold, on a free key) with two symbols: the comma list's read", async () => {
    const key = await freeKey(`${id}@example.com`);
    const { urls, fetch: watched } = recording();
    const got = await client()(stack.base, watched).hold(syms, key);
    expect(got.status, JSON.stringify(got.body)).toBe(200);
    expect(spelledAsExpected(urls[0]!), urls[0]!.search).toBe(true);
    const read = HoldView.parse(got.body);
    expect(read.names.map((n) => n.sym)).toEqual(syms);
    expect(read.unknown).toEqual([]);
    expect((got.body as { tier: { used_today: number } }).tier.used_today).toBe(1);
    // The comma list on the same key reads the same names and counts as one more read.
    const again = (await (await comma("/api/board/hold", syms, { "x-board-key": key })).json()) as { names: unknown; tier: { used_today: number } };
    expect(again.names).toEqual(read.names);
    expect(again.tier.used_today).toBe(2);
  });

  it("gets the paid route's 402 with two symbols at the single-name price, the comma list's terms", async () => {
    const { urls, fetch: watched } = recording();
    const got = await client()(stack.base, watched).name(syms);
    expect(got.status).toBe(402);
    expect(spelledAsExpected(urls[0]!), urls[0]!.search).toBe(true);
    const offers = offersOf(got);
    expect(offers.accepts[0]).toMatchObject({ amount: String(PRICE), payTo });
    expect(terms(offers)).toEqual(terms(offersOf(await comma("/api/board/name", syms))));
    expect(got.body).toMatchObject({ x402Version: 1, error: "payment_required" });
  });

  it("buys the paid route with @x402/fetch under the generated client: both names, settled", async () => {
    const { urls, fetch: watched } = recording();
    const got = await client()(stack.base, await paying(watched, PRICE)).name(syms);
    expect(got.status, JSON.stringify(got.body)).toBe(200);
    expect(urls.length).toBe(2);
    for (const url of urls) expect(spelledAsExpected(url), url.search).toBe(true);
    expect(got.headers.get("payment-response")).toBeTruthy();
    const read = NameView.parse(got.body);
    expect(read.names.map((n) => n.sym)).toEqual(syms);
  });

  it("refuses eleven symbols as the comma list is refused, before any 402", async () => {
    const got = await client()(stack.base, fetch).name(eleven());
    expect(got.status).toBe(400);
    const expected = { error: { code: "invalid_query", message: "Query parameter 'sym': at most 10 symbols per read.", param: "sym" } };
    expect(got.body).toMatchObject(expected);
    expect(await (await comma("/api/board/name", eleven())).json()).toMatchObject(expected);
  });
});

describe("one request however sym is spelled", () => {
  it("a payment signed against the comma list's 402 buys the repeated spelling (payments binds a payment to the route, not its query)", async () => {
    const key = generatePrivateKey();
    await chain.mint(privateKeyToAccount(key).address, PRICE);
    const offers = offersOf(await comma("/api/board/name", syms));
    const payment = encodePaymentSignatureHeader(await new x402Client().register("eip155:*", new ExactEvmScheme(privateKeyToAccount(key))).createPaymentPayload(offers));
    const got = await openapiFetch(stack.base, fetch).name(syms, { "PAYMENT-SIGNATURE": payment });
    expect(got.status, JSON.stringify(got.body)).toBe(200);
    expect(NameView.parse(got.body).names.map((n) => n.sym)).toEqual(syms);
  });

  it("mixed spellings read their union in order, with the same limit of ten in all", async () => {
    const key = await freeKey("mixed@example.com");
    const names = stack.twoDays[1]!.board.names.map((n) => n.sym);
    const mixed = await fetch(`${stack.base}/api/board/hold?sym=${names[0]},${names[1]}&sym=${names[2]}`, { headers: { "x-board-key": key } });
    expect(mixed.status).toBe(200);
    expect(HoldView.parse(await mixed.json()).names.map((n) => n.sym)).toEqual(names.slice(0, 3));
    const tooMany = await fetch(`${stack.base}/api/board/hold?sym=${eleven().slice(0, 6).join(",")}&${eleven().slice(6).map((s) => `sym=${s}`).join("&")}`, { headers: { "x-board-key": key } });
    expect(tooMany.status).toBe(400);
    expect(await tooMany.json()).toMatchObject({ error: { code: "invalid_query", message: "Query parameter 'sym': at most 10 symbols per read.", param: "sym" } });
  });

  it("any other parameter given twice is still refused: must be given once", async () => {
    const res = await fetch(`${stack.base}/api/board/name/history?sym=${syms[0]}&days=5&days=5`);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { code: "invalid_query", message: "Query parameter 'days': must be given once.", param: "days" } });
  });

  it("the served document declares sym in one style and says the repeated form is read the same", async () => {
    const doc = JSON.parse(await readFile(join(dir, "openapi.json"), "utf8")) as { components: { parameters: Record<string, { style?: string; explode?: boolean; description: string }> } };
    expect(doc.components.parameters["sym"]).toMatchObject({ style: "form", explode: false });
    expect(doc.components.parameters["sym"]!.description).toContain("sym=AAPL&sym=MSFT");
  });
});
