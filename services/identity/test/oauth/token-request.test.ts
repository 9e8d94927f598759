import { TokenReply } from "@board/proto";
import { describe, expect, it } from "vitest";
import { authenticationFailed, readTokenRequest, scopeRefusal } from "../../src/oauth/token-request.js";

const grant = { grant_type: "client_credentials" };
const SECRET = "lic_s3cret-value";

describe("reading a token request (RFC 6749 4.4, 2.3.1, 5.2)", () => {
  it("accepts client_secret_basic and client_secret_post", () => {
    expect(readTokenRequest({ ...grant, basic_client_id: "c1", basic_client_secret: SECRET })).toEqual({
      ok: true,
      client: { clientId: "c1", clientSecret: SECRET, basic: true },
    });
    expect(readTokenRequest({ ...grant, form_client_id: "c1", form_client_secret: SECRET })).toEqual({
      ok: true,
      client: { clientId: "c1", clientSecret: SECRET, basic: false },
    });
  });

  it("accepts Basic with the same client_id repeated in the body", () => {
    const r = readTokenRequest({ ...grant, basic_client_id: "c1", basic_client_secret: SECRET, form_client_id: "c1" });
    expect(r.ok).toBe(true);
  });

  it.each([
    ["missing grant_type", { basic_client_id: "c1", basic_client_secret: SECRET }, "invalid_request", 400],
    ["empty grant_type", { grant_type: "", basic_client_id: "c1", basic_client_secret: SECRET }, "invalid_request", 400],
    ["another grant", { grant_type: "password", basic_client_id: "c1", basic_client_secret: SECRET }, "unsupported_grant_type", 400],
    ["authorization_code", { grant_type: "authorization_code", form_client_id: "c1", form_client_secret: SECRET }, "unsupported_grant_type", 400],
    ["both methods", { ...grant, basic_client_id: "c1", basic_client_secret: SECRET, form_client_id: "c1", form_client_secret: SECRET }, "invalid_request", 400],
    ["Basic plus a body secret", { ...grant, basic_client_id: "c1", basic_client_secret: SECRET, form_client_secret: SECRET }, "invalid_request", 400],
    ["Basic with another body client_id", { ...grant, basic_client_id: "c1", basic_client_secret: SECRET, form_client_id: "c2" }, "invalid_request", 400],
    ["no client authentication", { ...grant }, "invalid_client", 401],
    ["body client_id without secret", { ...grant, form_client_id: "c1" }, "invalid_client", 401],
    ["body secret without client_id", { ...grant, form_client_secret: SECRET }, "invalid_client", 401],
    ["Basic with an empty secret", { ...grant, basic_client_id: "c1", basic_client_secret: "" }, "invalid_client", 401],
  ] as const)("%s -> %s", (_name, req, error, status) => {
    const r = readTokenRequest(req);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(TokenReply.parse(r)).toEqual(r);
    expect(r.error).toBe(error);
    expect(r.status).toBe(status);
    expect(r.error_description).not.toContain(SECRET);
    expect(r.error_description.length).toBeGreaterThan(0);
  });

  it("a malformed body is invalid_request with the gateway's description, before anything else", () => {
    const r = readTokenRequest({ malformed: "grant_type is repeated", basic_client_id: "c1", basic_client_secret: SECRET });
    expect(r).toEqual({ ok: false, status: 400, error: "invalid_request", error_description: "grant_type is repeated", basic: false });
  });

  it("the basic flag is set on a 401 only when the client used Basic", () => {
    const viaBasic = readTokenRequest({ ...grant, basic_client_id: "c1", basic_client_secret: "" });
    const viaForm = readTokenRequest({ ...grant, form_client_id: "c1" });
    expect(!viaBasic.ok && viaBasic.basic).toBe(true);
    expect(!viaForm.ok && viaForm.basic).toBe(false);
    expect(authenticationFailed(true)).toMatchObject({ status: 401, error: "invalid_client", basic: true });
    expect(authenticationFailed(false)).toMatchObject({ status: 401, error: "invalid_client", basic: false });
  });

  it("scope: absent or board:live, anything else is invalid_scope", () => {
    expect(scopeRefusal(undefined)).toBeNull();
    expect(scopeRefusal("board:live")).toBeNull();
    for (const s of ["", "board:admin", "board:live openid", "BOARD:LIVE"]) {
      expect(scopeRefusal(s)).toMatchObject({ ok: false, status: 400, error: "invalid_scope", basic: false });
    }
  });
});
