import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { openAuthorization, sealAuthorization, type PendingAuthorization } from "../../src/oauth/consent-request.js";
import { isS256Challenge, verifierMatches } from "../../src/oauth/pkce.js";
import { redirectUriProblem, redirectUriRegistered } from "../../src/oauth/redirect-uris.js";
import { readResources } from "../../src/oauth/resources.js";

describe("redirect URIs", () => {
  it("registers https and loopback http only, without fragment or user information", () => {
    for (const ok of ["https://a.example/cb", "https://a.example:8443/cb?x=1", "http://127.0.0.1/cb", "http://[::1]:9/cb", "http://localhost:3000/callback"]) expect(redirectUriProblem(ok), ok).toBeNull();
    for (const bad of ["http://a.example/cb", "http://127.0.0.2/cb", "myapp://cb", "javascript:alert(1)", "https://a.example/cb#f", "https://u:p@a.example/cb", "/relative"]) expect(redirectUriProblem(bad), bad).not.toBeNull();
  });

  it("matches exactly, except a loopback URI's port (RFC 8252 7.3)", () => {
    const registered = ["https://a.example/cb", "http://127.0.0.1:5000/callback"];
    expect(redirectUriRegistered(registered, "https://a.example/cb")).toBe(true);
    expect(redirectUriRegistered(registered, "https://a.example/cb/")).toBe(false);
    expect(redirectUriRegistered(registered, "https://a.example:443/cb?x")).toBe(false);
    expect(redirectUriRegistered(registered, "http://127.0.0.1:61000/callback")).toBe(true);
    expect(redirectUriRegistered(registered, "http://127.0.0.1:61000/other")).toBe(false);
    expect(redirectUriRegistered(registered, "http://localhost:5000/callback")).toBe(false);
  });
});

describe("PKCE", () => {
  const verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
  const challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"; // RFC 7636 appendix B

  it("verifies S256 as RFC 7636 appendix B does, and nothing else", () => {
    expect(isS256Challenge(challenge)).toBe(true);
    expect(verifierMatches(verifier, challenge)).toBe(true);
    expect(verifierMatches(`${verifier}x`, challenge)).toBe(false);
    // plain (the verifier itself as the challenge) never matches
    expect(verifierMatches(verifier, verifier)).toBe(false);
    expect(verifierMatches("short", createHash("sha256").update("short").digest("base64url"))).toBe(false);
  });
});

describe("resource indicators", () => {
  const issuer = "https://board.example";
  it("reads the API and /mcp/live, with or without a trailing slash; anything else is refused", () => {
    expect(readResources(undefined, issuer)).toEqual({ ok: true, resources: null });
    expect(readResources(["https://board.example", "https://board.example/mcp/live/", "https://board.example/"], issuer)).toEqual({ ok: true, resources: ["api", "mcp_live"] });
    for (const bad of ["https://board.example/mcp", "https://evil.example", "https://board.example/?q=1", "https://board.example/#x", "nonsense"]) expect(readResources([bad], issuer).ok, bad).toBe(false);
  });
});

describe("the sealed authorization request", () => {
  const key = new Uint8Array(32).fill(7);
  const now = new Date("2026-11-20T12:00:00Z");
  const pending: PendingAuthorization = {
    client_id: "bcl_1",
    redirect_uri: "http://127.0.0.1:1/cb",
    code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
    resources: ["mcp_live"],
    scope: "board:live",
    state: "s",
    exp: now.getTime() / 1000 + 600,
  };

  it("opens what it sealed until it expires, and nothing changed or made with another key", () => {
    const sealed = sealAuthorization(key, pending);
    expect(openAuthorization(key, sealed, now)).toEqual({ ok: true, pending });
    expect(openAuthorization(key, sealed, new Date(now.getTime() + 600_000))).toEqual({ ok: false, reason: "request_expired" });
    expect(openAuthorization(new Uint8Array(32).fill(8), sealed, now)).toEqual({ ok: false, reason: "request_invalid" });
    const [, mac] = sealed.split(".");
    const changed = Buffer.from(JSON.stringify({ ...pending, redirect_uri: "https://evil.example/cb" })).toString("base64url");
    expect(openAuthorization(key, `${changed}.${mac}`, now)).toEqual({ ok: false, reason: "request_invalid" });
    expect(openAuthorization(key, "garbage", now)).toEqual({ ok: false, reason: "request_invalid" });
  });
});
