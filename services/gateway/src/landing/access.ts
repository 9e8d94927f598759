import type { Route } from "@board/proto";
import { html, type Html } from "../http/html.js";

/** How to pay or get in: every payment rail and credential of SPEC.md 4.1 and 5. */
export function renderAccess(routes: readonly Route[]): Html {
  const freeTier = routes.filter((r) => r.kind === "paid" && r.tiers.includes("free_key")).map((r) => r.path);
  const live = routes.filter((r) => r.kind === "live").map((r) => r.path);
  const codes = (paths: readonly string[]) => paths.map((p, i) => html`${i > 0 ? ", " : ""}<code>${p}</code>`);
  return html`<dl class="pay">
<dt>x402 (v2, with a v1-dialect body)</dt>
<dd>Request a paid route with no payment: the 402 answer lists the offers in its JSON body and, base64, in the <code>PAYMENT-REQUIRED</code> header. Pay the same amount in USDC on Base (<code>eip155:8453</code>, scheme exact), Solana (fee payer sponsored) or Algorand (fees sponsored), then repeat the request with the signed payment in <code>PAYMENT-SIGNATURE</code> (<code>X-PAYMENT</code> for v1 clients). The read comes back with its settlement receipt in <code>PAYMENT-RESPONSE</code>. A payment is used once and settled only after the read succeeded.</dd>
<dt>MPP</dt>
<dd>The same 402 carries a <code>WWW-Authenticate: Payment</code> challenge (method usdc, intent charge, network <code>eip155:8453</code>). Answer with the credential in <code>Authorization: Payment</code>; the receipt comes back in <code>Payment-Receipt</code>.</dd>
<dt>Circle batched rail (gasless)</dt>
<dd>Choose the 402's accepts entry whose <code>extra.name</code> is <code>GatewayWalletBatched</code> (scheme exact, <code>eip155:8453</code>); it settles offchain through Circle Gateway.</dd>
<dt>Free API key</dt>
<dd><code>POST /api/key</code> with <code>{"email": "…"}</code> returns a key at once; send it in <code>X-Board-Key</code>. 25 reads a day (the UTC day) across ${codes(freeTier)}. The address is kept only as a salted hash; a key unused for 90 days expires.</dd>
<dt>Wallet sign-in</dt>
<dd>Sign the sign-in-with-x message that every 402 declares (EVM personal_sign, Solana signMessage or Algorand ed25519; it proves the address and moves no funds) and send it base64 in <code>SIGN-IN-WITH-X</code>, valid for 10 minutes. Or <code>GET /api/auth/nonce</code>, sign, and <code>POST /api/auth/verify</code> for a wallet key. The same 25 reads a day, per address, no email.</dd>
<dt>License keys</dt>
<dd>Sold outside the service, monthly or yearly, sent in <code>X-License-Key</code>. A scanner license serves every paid route above live, with no daily cap. A live-feed license adds the live tier: ${codes(live)} over HTTP, and the same tier over MCP at <code>/mcp</code>.</dd>
<dt>Bearer token</dt>
<dd><code>POST /oauth/token</code> with <code>grant_type=client_credentials</code>, your client id and the license key as <code>client_secret</code> returns a one-hour ES256 token (scope <code>board:live</code>): send <code>Authorization: Bearer …</code>. Its keys are at <code>/oauth/jwks</code>.</dd>
</dl>`;
}
