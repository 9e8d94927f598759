import { expect } from "vitest";

/**
 * A licence holder at the consent page, driven over HTTP as a browser would: open the
 * authorization URL, read the form, post the licence key (or deny), and return where the
 * server sends the browser next.
 */
export async function completeConsent(authorizationUrl: URL | string, licenseKey: string, decision: "approve" | "deny" = "approve"): Promise<{ status: number; location: string | null; page: string }> {
  const page = await fetch(authorizationUrl, { redirect: "manual" });
  expect(page.status, await page.clone().text()).toBe(200);
  const form = formOf(await page.text());
  const posted = await fetch(new URL("/oauth/authorize", authorizationUrl), {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ request: form.request, decision, license_key: licenseKey }),
  });
  return { status: posted.status, location: posted.headers.get("location"), page: posted.status === 302 ? "" : await posted.text() };
}

/** The consent form's hidden field (HTML-escaped in the page). */
export function formOf(html: string): { request: string } {
  const m = /name="request" value="([^"]+)"/.exec(html);
  if (!m?.[1]) throw new Error(`no consent form in: ${html.slice(0, 500)}`);
  return { request: m[1].replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&") };
}

/** POST /oauth/register as JSON; the answer's body. */
export async function registerClient(base: string, metadata: Record<string, unknown>): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${base}/oauth/register`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(metadata) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}
