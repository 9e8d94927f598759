import { decodePaymentRequiredHeader } from "@x402/core/http";
import { createSIWxPayload, encodeSIWxHeader, type SIWxExtension } from "@x402/extensions/sign-in-with-x";
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Stack } from "./harness.js";

/**
 * New free keys and wallet sign-ins per client address (security finding 2): each email and
 * each wallet is a fresh 25 reads a day, so one address may start only so many an hour. This
 * gateway trusts one proxy hop, so X-Forwarded-For stands for distinct client addresses, IPv6
 * ones included; small limits keep the file short.
 */
const KEYS_PER_HOUR = 3;
const SIGN_INS_PER_HOUR = 2;

/** Identity and metering run this far ahead of the wall clock once a test moves them (the window's end). */
const clock = { offsetMs: 0 };
const stack = new Stack();

beforeAll(async () => {
  await stack.start({
    now: () => new Date(Date.now() + clock.offsetMs),
    gateway: { TRUST_PROXY_HOPS: 1 },
    metering: { FREE_KEYS_PER_ADDRESS_PER_HOUR: String(KEYS_PER_HOUR), SIGN_INS_PER_ADDRESS_PER_HOUR: String(SIGN_INS_PER_HOUR) },
  });
  await stack.startBoard();
  await stack.publishTwoDays();
  await stack.startPayments();
  await stack.untilServing();
}, 60_000);

afterAll(() => stack.stop());

interface ErrorBody {
  error: { code: string; status: number; message: string; retry_after_seconds?: number };
}

const postKey = (from: string, email: string) =>
  fetch(`${stack.base}/api/key`, { method: "POST", headers: { "content-type": "application/json", "x-forwarded-for": from }, body: JSON.stringify({ email }) });

let emails = 0;
const freshEmail = () => `limit-${++emails}-${Date.now()}@example.com`;

/** A 429 of the one error body with this code, Retry-After in the header and the body alike, within the hour. */
async function expectLimited(res: Response, code: "key_issue_limit" | "sign_in_limit"): Promise<number> {
  const body = (await res.json()) as ErrorBody;
  expect(res.status, JSON.stringify(body)).toBe(429);
  expect(body.error.code).toBe(code);
  expect(body.error.status).toBe(429);
  const retryAfter = Number(res.headers.get("retry-after"));
  expect(retryAfter).toBe(body.error.retry_after_seconds);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(3600);
  return retryAfter;
}

/** A signed SIWX payload of the challenge of a fresh 402, by `account` on Base. */
async function signedPayload(account: PrivateKeyAccount) {
  const res = await fetch(`${stack.base}/api/board/regime`, { headers: { "x-forwarded-for": "192.0.2.250" } });
  expect(res.status).toBe(402);
  await res.body?.cancel();
  const ext = decodePaymentRequiredHeader(res.headers.get("payment-required")!).extensions?.["sign-in-with-x"] as SIWxExtension;
  return createSIWxPayload({ ...ext.info, chainId: "eip155:8453", type: "eip191" }, account, `${stack.base}/api/board/regime`);
}

const wallet = () => privateKeyToAccount(generatePrivateKey());

const verify = async (from: string, account: PrivateKeyAccount) =>
  fetch(`${stack.base}/api/auth/verify`, { method: "POST", headers: { "content-type": "application/json", "x-forwarded-for": from }, body: JSON.stringify(await signedPayload(account)) });

const signedRead = (from: string, header: string) => fetch(`${stack.base}/api/board/regime`, { headers: { "sign-in-with-x": header, "x-forwarded-for": from } });

describe("free keys per client address", () => {
  it(`issues ${KEYS_PER_HOUR} keys an hour to one address (distinct emails), then 429 key_issue_limit with Retry-After; another address is unaffected`, async () => {
    const first = freshEmail();
    for (const email of [first, freshEmail(), freshEmail()]) expect((await postKey("203.0.113.10", email)).status).toBe(201);
    await expectLimited(await postKey("203.0.113.10", freshEmail()), "key_issue_limit");
    // Every key issued counts: the same email again is no way around it.
    await expectLimited(await postKey("203.0.113.10", first), "key_issue_limit");
    const other = await postKey("203.0.113.11", freshEmail());
    expect(other.status).toBe(201);
    expect(((await other.json()) as { key: string }).key).toMatch(/^\w+/);
  });

  it("an IPv6 client counts as its /64: other hosts of the /64 share the limit, the next /64 does not", async () => {
    for (const host of ["2001:db8:5:1::1", "2001:db8:5:1::2", "2001:db8:5:1:ffff:ffff:ffff:ffff"]) expect((await postKey(host, freshEmail())).status).toBe(201);
    // The same /64 however it is written.
    await expectLimited(await postKey("2001:0db8:0005:0001:0000:0000:0000:abcd", freshEmail()), "key_issue_limit");
    expect((await postKey("2001:db8:5:2::1", freshEmail())).status).toBe(201);
  });

  it("the documented refusal: OpenAPI lists 429 key_issue_limit for POST /api/key, sign_in_limit for sign-ins, and llms.txt states both limits", async () => {
    const doc = (await (await fetch(`${stack.base}/openapi.json`)).json()) as { paths: Record<string, Record<string, { responses: Record<string, { description: string; headers?: object }> }>> };
    const tooMany = (path: string, method: string) => doc.paths[path]?.[method]?.responses["429"];
    expect(tooMany("/api/key", "post")?.description).toContain("key_issue_limit");
    expect(tooMany("/api/key", "post")?.headers).toHaveProperty("Retry-After");
    expect(tooMany("/api/auth/verify", "post")?.description).toContain("sign_in_limit");
    expect(tooMany("/api/board/regime", "get")?.description).toContain("sign_in_limit");
    const llms = await (await fetch(`${stack.base}/llms.txt`)).text();
    expect(llms).toContain("key_issue_limit");
    expect(llms).toContain("sign_in_limit");
  });
});

describe("wallet sign-ins per client address", () => {
  it(`POST /api/auth/verify: ${SIGN_INS_PER_HOUR} wallets an hour from one address, a wallet again is not counted, the next is 429 sign_in_limit; another address is unaffected`, async () => {
    const [a, b, c] = [wallet(), wallet(), wallet()];
    expect((await verify("203.0.113.20", a)).status).toBe(201);
    expect((await verify("203.0.113.20", b)).status).toBe(201);
    // Signing in again (a fresh key for the same wallet) starts no new daily count.
    expect((await verify("203.0.113.20", a)).status).toBe(201);
    await expectLimited(await verify("203.0.113.20", c), "sign_in_limit");
    expect((await verify("203.0.113.21", c)).status).toBe(201);
  });

  it("SIGN-IN-WITH-X: a wallet new to the address past the limit is refused 429 sign_in_limit before its count; counted wallets keep reading; another address reads", async () => {
    const [a, b, c] = [wallet(), wallet(), wallet()];
    const headerOf = async (account: PrivateKeyAccount) => encodeSIWxHeader(await signedPayload(account));
    const [ha, hb, hc] = [await headerOf(a), await headerOf(b), await headerOf(c)];
    expect((await signedRead("203.0.113.30", ha)).status).toBe(200);
    expect((await signedRead("203.0.113.30", hb)).status).toBe(200);
    await expectLimited(await signedRead("203.0.113.30", hc), "sign_in_limit");
    // A wallet counted once keeps reading on its session, and re-signing is no new sign-in, by header or at /api/auth/verify.
    expect((await signedRead("203.0.113.30", ha)).status).toBe(200);
    expect((await signedRead("203.0.113.30", await headerOf(b))).status).toBe(200);
    expect((await verify("203.0.113.30", a)).status).toBe(201);
    // The refused read spent none of the wallet's 25: its first read elsewhere is its first.
    const elsewhere = await signedRead("203.0.113.31", hc);
    expect(elsewhere.status).toBe(200);
    expect(((await elsewhere.json()) as { tier: { used_today: number } }).tier.used_today).toBe(1);
  });
});

describe("wallets counted per address", () => {
  it("a wallet counted for an address reads on without metering being asked, another address is asked", async () => {
    const asked = async () => {
      const text = await (await fetch(`http://127.0.0.1:${stack.metering!.runtime.health.port}/metrics`)).text();
      return text
        .split("\n")
        .filter((l) => l.startsWith("bus_handled_seconds_count{") && l.includes('subject="metering.v1.new_credential"'))
        .reduce((sum, l) => sum + Number(l.split(" ").pop()), 0);
    };
    const header = encodeSIWxHeader(await signedPayload(wallet()));
    expect((await signedRead("203.0.113.50", header)).status).toBe(200);
    const before = await asked();
    for (let i = 0; i < 5; i++) expect((await signedRead("203.0.113.50", header)).status).toBe(200);
    expect(await asked()).toBe(before);
    // Another address has not counted it: asked.
    expect((await signedRead("203.0.113.51", header)).status).toBe(200);
    expect(await asked()).toBe(before + 1);
    // Its count's end (counted_until) is held to by the gateway's CountedWallets (its unit test).
  });
});

describe("the window", () => {
  it("an hour after an address's oldest counted key, it gets a key again (the Retry-After it was told)", async () => {
    for (let i = 0; i < KEYS_PER_HOUR; i++) expect((await postKey("203.0.113.40", freshEmail())).status).toBe(201);
    const retryAfter = await expectLimited(await postKey("203.0.113.40", freshEmail()), "key_issue_limit");
    clock.offsetMs += (retryAfter - 5) * 1000;
    await expectLimited(await postKey("203.0.113.40", freshEmail()), "key_issue_limit");
    clock.offsetMs += 6_000;
    expect((await postKey("203.0.113.40", freshEmail())).status).toBe(201);
  });

});
