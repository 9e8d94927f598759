import { identityLicenseIssue, type LicenseIssueReply } from "@board/proto";
import { request } from "@board/service-kit";
import { UnauthorizedError, type OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import * as oidc from "openid-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Stack } from "./harness.js";
import { completeConsent } from "./sign-in.js";

// The live tier from an MCP host that signs in: the MCP SDK's own OAuth client support
// (its OAuthClientProvider), with a provider whose "browser" completes the consent page over HTTP.
const stack = new Stack();
const REDIRECT = "http://127.0.0.1:47123/oauth/callback";

beforeAll(async () => {
  await stack.start({ metering: { BURST_CAPACITY: "100000", BURST_PER_SECOND: "100000" } });
  await stack.startBoard();
  await stack.publishTwoDays({ live: true });
  await stack.startPayments();
  await stack.untilServing();
}, 60_000);

afterAll(() => stack.stop());

const issue = (kind: "scanner" | "live_feed"): Promise<LicenseIssueReply> => request(stack.nc, identityLicenseIssue, { kind, period: "monthly", holder: "mcp live test" }, { timeoutMs: 5000 });

/** An MCP host's provider, in memory; its redirect to the authorization server is the licence holder entering the key. */
class ConsentingProvider implements OAuthClientProvider {
  client: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = "";
  code: string | undefined;
  redirects = 0;
  readonly expectedState = "host-state-1";

  constructor(private readonly licenseKey: string) {}

  get redirectUrl() {
    return REDIRECT;
  }
  get clientMetadata(): OAuthClientMetadata {
    return { client_name: "MCP SDK test host", redirect_uris: [REDIRECT], grant_types: ["authorization_code", "refresh_token"], response_types: ["code"], token_endpoint_auth_method: "none" };
  }
  state() {
    return this.expectedState;
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  saveCodeVerifier(v: string) {
    this.verifier = v;
  }
  codeVerifier() {
    return this.verifier;
  }
  async redirectToAuthorization(url: URL) {
    this.redirects++;
    expect(url.searchParams.get("code_challenge_method")).toBe("S256");
    expect(url.searchParams.get("resource")).toBe(`${stack.base}/mcp/live`);
    const consent = await completeConsent(url, this.licenseKey);
    expect(consent.status, consent.page).toBe(302);
    const back = new URL(consent.location!);
    expect(back.searchParams.get("state")).toBe(this.expectedState);
    expect(consent.location).not.toContain(this.licenseKey);
    this.code = back.searchParams.get("code") ?? undefined;
  }
}

const liveUrl = () => new URL(`${stack.base}/mcp/live`);

async function connected(provider: OAuthClientProvider): Promise<Client> {
  const client = new Client({ name: "mcp-live-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(liveUrl(), { authProvider: provider }));
  return client;
}

const json = (r: unknown) => JSON.parse((r as CallToolResult).content.map((c) => (c.type === "text" ? c.text : "")).join("")) as Record<string, unknown>;

describe("/mcp/live with the MCP SDK client's OAuth support", () => {
  it("answers an unauthenticated request with 401 and the resource metadata, which names the authorization server", async () => {
    const res = await fetch(liveUrl(), {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe(`Bearer realm="board", scope="board:live", resource_metadata="${stack.base}/.well-known/oauth-protected-resource/mcp/live"`);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("credential_required");
    const metadata = (await (await fetch(`${stack.base}/.well-known/oauth-protected-resource/mcp/live`)).json()) as { resource: string; authorization_servers: string[] };
    expect(metadata).toMatchObject({ resource: `${stack.base}/mcp/live`, authorization_servers: [stack.base] });
  });

  it("connects, is sent to sign in, gets a token for /mcp/live, calls the live tools; a lost token is refreshed (rotated)", async () => {
    const { key } = await issue("live_feed");
    const provider = new ConsentingProvider(key);
    const transport = new StreamableHTTPClientTransport(liveUrl(), { authProvider: provider });
    const first = new Client({ name: "mcp-live-test", version: "1.0.0" });
    await expect(first.connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(provider.redirects).toBe(1);
    expect(provider.client?.client_id).toMatch(/^bcl_/);
    expect(provider.code).toMatch(/^bac_/);
    await transport.finishAuth(provider.code!);
    expect(provider.saved).toMatchObject({ token_type: "Bearer", scope: "board:live" });
    expect(provider.saved?.refresh_token).toBeTruthy();

    const client = await connected(provider);
    const tools = (await client.listTools()).tools.map((t) => t.name);
    expect(tools).toEqual(expect.arrayContaining(["get_engine_feed", "get_live_rules", "get_live_setup", "get_board_state"]));
    expect(tools.some((t) => t.endsWith("_live") && t !== "get_board_live")).toBe(false);
    const feed = await client.callTool({ name: "get_engine_feed", arguments: {} });
    expect(feed.isError ?? false, JSON.stringify(feed).slice(0, 500)).toBe(false);
    expect(json(feed)).toHaveProperty("candidates");
    const setup = await client.callTool({ name: "get_live_setup", arguments: { sym: stack.twoDays[1]!.board.names[0]!.sym } });
    expect(setup.isError ?? false).toBe(false);
    await client.close();

    // The host loses its access token: the next request is 401, the SDK refreshes and carries on, with a new refresh token.
    const oldRefresh = provider.saved!.refresh_token;
    provider.saved = { ...provider.saved!, access_token: "expired-or-lost" };
    const again = await connected(provider);
    expect((await again.callTool({ name: "get_live_rules", arguments: {} })).isError ?? false).toBe(false);
    expect(provider.saved.refresh_token).not.toBe(oldRefresh);
    expect(provider.redirects).toBe(1);
    await again.close();
  });

  it("refuses a token asked for the HTTP API alone, and a scanner license cannot sign in for it", async () => {
    const { key } = await issue("live_feed");
    const reg = await fetch(`${stack.base}/oauth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ redirect_uris: [REDIRECT], token_endpoint_auth_method: "none" }),
    });
    const clientId = ((await reg.json()) as { client_id: string }).client_id;
    const config = await oidc.discovery(new URL(stack.base), clientId, undefined, oidc.None(), { algorithm: "oauth2", execute: [oidc.allowInsecureRequests] });
    const verifier = oidc.randomPKCECodeVerifier();
    const url = oidc.buildAuthorizationUrl(config, { redirect_uri: REDIRECT, code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: "S256", state: "z", resource: stack.base });
    const consent = await completeConsent(url, key);
    const apiOnly = await oidc.authorizationCodeGrant(config, new URL(consent.location!), { pkceCodeVerifier: verifier, expectedState: "z" });
    const refused = await fetch(liveUrl(), {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${apiOnly.access_token}` },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toMatch(/error="invalid_token"/);
    // The same token still opens the HTTP live routes it was asked for.
    expect((await fetch(`${stack.base}/api/live/feed`, { headers: { authorization: `Bearer ${apiOnly.access_token}` } })).status).toBe(200);

    const scanner = await issue("scanner");
    const provider = new ConsentingProvider(scanner.key);
    await expect(connected(provider)).rejects.toThrow();
    expect(provider.code).toBeUndefined();
  });

  it("client credentials tokens (audience: the HTTP API) and X-License-Key keep working where they did", async () => {
    const { key, license } = await issue("live_feed");
    const cc = await fetch(`${stack.base}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "client_credentials", client_id: license.client_id, client_secret: key }),
    });
    const token = ((await cc.json()) as { access_token: string }).access_token;
    expect((await fetch(`${stack.base}/api/live/feed`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    const onLive = await fetch(liveUrl(), {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${token}` },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(onLive.status).toBe(401);
    const mcp = new Client({ name: "license-key-host", version: "1.0.0" });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${stack.base}/mcp`), { requestInit: { headers: { "X-License-Key": key } } }));
    expect((await mcp.callTool({ name: "get_engine_feed", arguments: {} })).isError ?? false).toBe(false);
    await mcp.close();
  });
});
