import { identityResolve, identitySignInChallenge, identitySignInVerify, SignInVerifyReply, type SignInPayload } from "@board/proto";
import { BusError, request } from "@board/service-kit";
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DAY, TestIdentity } from "./support.js";

// Sign-in messages carry real times: this identity runs on the real clock, moved only forward.
const t = new TestIdentity("real");
const BASE = "eip155:8453";

beforeAll(() => t.start({ PUBLIC_BASE_URL: "https://board.example" }));
afterAll(() => t.stop());

/** A wallet signing in the way a client does: ask for the message (GET /api/auth/nonce), sign it, post the payload. */
async function signedPayload(account: PrivateKeyAccount): Promise<SignInPayload> {
  const challenge = await request(t.nc, identitySignInChallenge, { address: account.address, chain: BASE });
  if (!challenge.message || !challenge.address || !challenge.type || !challenge.chainId) throw new Error("challenge without a message");
  const signature = await account.signMessage({ message: challenge.message });
  return { ...challenge.info, address: challenge.address, chainId: challenge.chainId, type: challenge.type, signature };
}

const verify = (payload: SignInPayload) => request(t.nc, identitySignInVerify, { payload });
const resolveKey = (key: string) => request(t.nc, identityResolve, { credentials: { board_key: key } });

describe("wallet-tier keys (identity.v1.sign_in_verify)", () => {
  it("a verified sign-in gets a bwk_ key that resolves to the wallet's principal", async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const reply = SignInVerifyReply.parse(await verify(await signedPayload(account)));
    if (!reply.ok) throw new Error(reply.message);
    expect(reply.key).toMatch(/^bwk_[A-Za-z0-9_-]{43}$/);
    expect(reply).toMatchObject({ tier: "wallet", address: account.address, chainId: BASE, daily_limit: 25, header: "X-Board-Key", replaced_previous: false });
    expect(reply.routes).toContain("/api/board/regime");
    expect(reply.usage).toContain("/api/auth/verify");

    const resolved = await resolveKey(reply.key);
    if (!resolved.ok) throw new Error(resolved.message);
    expect(resolved.principal).toMatchObject({ tier: "wallet", license_kind: null, expires_at: null });
    expect(resolved.principal.id).toMatch(/^wallet:/);
    expect(resolved.principal.id.toLowerCase()).toContain(account.address.toLowerCase());
    const all = await t.dump();
    expect(all).not.toContain(reply.key);
    expect(all).not.toContain(reply.key.slice(4));
  });

  it("signing in again retires the address's previous key; another address keeps its own", async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const other = privateKeyToAccount(generatePrivateKey());
    const first = await verify(await signedPayload(account));
    const otherKey = await verify(await signedPayload(other));
    if (!first.ok) throw new Error(first.message);
    const before = await resolveKey(first.key);
    const second = await verify(await signedPayload(account));
    if (!before.ok || !second.ok || !otherKey.ok) throw new Error("sign-in refused");
    expect(second.replaced_previous).toBe(true);
    const old = await resolveKey(first.key);
    expect(old).toMatchObject({ ok: false, code: "key_unknown" });
    if (!old.ok) expect(old.message).toContain("same wallet address");
    // Both keys of one address are one principal (its daily count carries over); another address is another.
    const now = await resolveKey(second.key);
    const elsewhere = await resolveKey(otherKey.key);
    if (!now.ok || !elsewhere.ok) throw new Error("live key refused");
    expect(now.principal.id).toBe(before.principal.id);
    expect(elsewhere.principal.id).not.toBe(before.principal.id);
  });

  it("a refused sign-in answers the ok:false branch and issues nothing", async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const payload = await signedPayload(account);
    const forged = await verify({ ...payload, signature: await privateKeyToAccount(generatePrivateKey()).signMessage({ message: "x" }) });
    expect(forged).toMatchObject({ ok: false, code: "sign_in_invalid" });
    const rows = await t.query<{ n: string }>("select count(*)::text as n from identity.board_keys where kind = 'wallet'");
    expect((await verify(payload)).ok).toBe(true); // the real one still works
    const after = await t.query<{ n: string }>("select count(*)::text as n from identity.board_keys where kind = 'wallet'");
    expect(Number(after[0]?.n)).toBe(Number(rows[0]?.n) + 1);
  });

  it("the challenge refuses a chain we do not sign in on with a bus error", async () => {
    const err = await request(t.nc, identitySignInChallenge, { address: "0x0000000000000000000000000000000000000001", chain: "eip155:1" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BusError);
    expect((err as BusError).code).toBe("unknown_chain");
    expect((err as BusError).status).toBe(400);
  });

  it("a wallet key unused for more than 90 days expires with advice to sign in again", async () => {
    const reply = await verify(await signedPayload(privateKeyToAccount(generatePrivateKey())));
    if (!reply.ok) throw new Error(reply.message);
    t.advance(90 * DAY + 60_000);
    const expired = await resolveKey(reply.key);
    expect(expired).toMatchObject({ ok: false, code: "key_expired" });
    if (!expired.ok) expect(expired.message).toContain("/api/auth/verify");
  });
});
