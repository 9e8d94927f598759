import { existsSync, mkdirSync, statSync } from "node:fs";
import http from "node:http";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";
import { FreeBoard, FullBoard, PAID_ROUTES, type SectorLabel } from "@board/proto";
import { fixtureSnapshot } from "@board/service-kit/testing";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Stack, until } from "./harness.js";

/** Debian's chromium (.ci/run installs it); never a downloaded browser. */
const CHROMIUM = "/usr/bin/chromium";
/** Kept as CI artifacts beside the other pages' screenshots (.ci/run lists them); git-ignored. */
const SCREENSHOTS = fileURLToPath(new URL("../artifacts/screenshots/", import.meta.url));
const HOSTILE = `<img src=x onerror="alert('name')"><script>alert(1)</script> & Co`;

const stack = new Stack();
let browser: Browser;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium), as .ci/run does.`);
  mkdirSync(SCREENSHOTS, { recursive: true });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
  await stack.start();
});
afterAll(async () => {
  await browser?.close();
  await stack.stop();
});

/** node:http, so the request carries exactly the headers given (fetch adds Accept-Encoding). */
function raw(method: "GET" | "HEAD", path: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
    http
      .request(`${stack.base}${path}`, { method, headers }, (r) => {
        const chunks: Buffer[] = [];
        r.on("data", (c: Buffer) => chunks.push(c)).on("end", () => resolve({ status: r.statusCode ?? 0, headers: r.headers, body: Buffer.concat(chunks) }));
      })
      .on("error", reject)
      .end();
  });
}

/** Waits until GET / answers `status` and its body contains `text` (the page is revalidated at most once a second). */
async function untilPage(status: number, text: string) {
  await until(async () => {
    const r = await raw("GET", "/");
    return r.status === status && r.body.toString("utf8").includes(text);
  });
}

/** The one browser global the test reads; the root tsconfig has no DOM library. */
type StyleWindow = { getComputedStyle(el: unknown): { backgroundColor: string } };

interface Visit {
  page: Page;
  status: number;
  consoleErrors: string[];
  violations: string[];
  failed: string[];
  requests: string[];
  dialogs: string[];
}

/** Opens / in a fresh page, recording console errors, CSP violations, failed requests and every request made. */
async function visit(): Promise<Visit> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const v: Visit = { page, status: 0, consoleErrors: [], violations: [], failed: [], requests: [], dialogs: [] };
  page.on("console", (m) => {
    if (m.type() === "error") v.consoleErrors.push(m.text());
  });
  page.on("pageerror", (e) => v.consoleErrors.push(e.message));
  page.on("request", (r) => v.requests.push(r.url()));
  page.on("requestfailed", (r) => v.failed.push(`${r.url()}: ${r.failure()?.errorText ?? "failed"}`));
  page.on("response", (r) => {
    if (r.status() >= 400 && r.url() !== `${stack.base}/`) v.failed.push(`${r.url()}: ${r.status()}`);
  });
  page.on("dialog", (d) => {
    v.dialogs.push(d.message());
    void d.dismiss();
  });
  // Injected by the browser itself, so the page's own CSP does not stop it from reporting violations.
  await page.addInitScript({
    content: `window.__violations = [];
document.addEventListener("securitypolicyviolation", (e) => window.__violations.push(e.violatedDirective + " " + e.blockedURI));`,
  });
  const res = await page.goto(`${stack.base}/`, { waitUntil: "load" });
  v.status = res?.status() ?? 0;
  v.violations = await page.evaluate(() => (globalThis as unknown as { __violations: string[] }).__violations);
  return v;
}

async function expectPricesAndDocuments(page: Page) {
  const rows = page.locator("table.prices tbody tr");
  expect(await rows.count()).toBe(PAID_ROUTES.length);
  for (const r of PAID_ROUTES) expect(await page.locator(`tr[data-path="${r.path}"] th`).textContent()).toBe(r.path);
  expect(await page.locator('tr[data-path="/api/board/agent"] [data-usdc]').textContent()).toBe("0.25");
  expect(await page.locator('tr[data-path="/api/board/regime"] [data-usdc]').textContent()).toBe("0.005");
  for (const path of ["/llms.txt", "/openapi.json", "/.well-known/api-catalog", "/.well-known/mcp/server-card.json", "/mcp", "/api", "/api/board/status", "/api/board/symbols", "/api/board/free"])
    expect(await page.locator(`#documents a[href="${path}"]`).count(), path).toBe(1);
  expect(await page.locator("#pay").textContent()).toContain("GatewayWalletBatched");
  // How an MCP host (free, paid per call, signed in on a license) and a generated client connect.
  const connect = await page.locator("#connect").textContent();
  for (const said of ["/mcp/live", "_meta[\"x402/payment\"]", "outputSchema", "openapi-typescript", "openapi-fetch", "sym=AAPL&sym=MSFT"]) expect(connect, said).toContain(said);
}

function expectStrictHeaders(headers: http.IncomingHttpHeaders) {
  expect(headers["content-type"]).toBe("text/html; charset=utf-8");
  const csp = String(headers["content-security-policy"]);
  expect(csp).toContain("default-src 'none'");
  expect(csp).toMatch(/style-src 'sha256-[A-Za-z0-9+/]+=*'/);
  expect(csp).toContain("img-src 'self' data:");
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp).not.toContain("unsafe");
  expect(headers["x-content-type-options"]).toBe("nosniff");
  expect(headers["link"]).toMatch(/<http:\/\/[^>]+\/\.well-known\/api-catalog>; rel="api-catalog"/);
}

describe("landing page", () => {
  it("renders with prices and documents while the board is not on the bus (503, not stored)", async () => {
    const r = await raw("GET", "/");
    expect(r.status).toBe(503);
    expectStrictHeaders(r.headers);
    expect(r.headers["cache-control"]).toBe("no-store");
    expect(r.headers["retry-after"]).toBe("5");
    expect(r.body.toString("utf8")).toContain('data-board="unreachable"');
  });

  it("renders the warming-up page in a browser before any publish: notice, prices, links, no CSP violation", async () => {
    await stack.startBoard();
    await untilPage(503, 'data-board="warming_up"');
    const v = await visit();
    try {
      expect(v.status).toBe(503);
      expect(await v.page.locator('[data-board="warming_up"]').textContent()).toContain("The board is warming up.");
      expect(await v.page.locator("ul.heat").count()).toBe(0);
      await expectPricesAndDocuments(v.page);
      // The browser reports the document's own 503 as a console error; nothing else may appear.
      expect(v.consoleErrors).toEqual(["Failed to load resource: the server responded with a status of 503 (Service Unavailable)"]);
      expect(v.violations).toEqual([]);
      expect(v.failed).toEqual([]);
      expect(v.requests).toEqual([`${stack.base}/`]);
      await v.page.screenshot({ path: `${SCREENSHOTS}landing-page-warming-up.png`, fullPage: true });
    } finally {
      await v.page.close();
    }
    const head = await raw("HEAD", "/");
    expect(head.status).toBe(503);
    expect(head.body.length).toBe(0);
    expect(head.headers["retry-after"]).toBe("5");
  });

  it("draws the free slice in a browser: regime verdict per book, sector heat map, top names, prices", async () => {
    await stack.publishTwoDays();
    await stack.untilServing();
    await untilPage(200, 'data-asof="2026-11-19"');
    const free = FreeBoard.parse(await (await fetch(`${stack.base}/api/board/free`)).json());
    const delayed = FullBoard.parse(await (await fetch(`${stack.base}/api/board/agent?preview=1`)).json());

    const v = await visit();
    try {
      const { page } = v;
      expect(v.status).toBe(200);
      expect(await page.title()).toContain("Scored Market Board");
      expect(await page.locator("html").getAttribute("lang")).toBe("en");
      const asof = await page.locator("[data-asof]").textContent();
      expect(asof).toContain("From the board of 2026-11-19, one trading day delayed");
      expect(await page.locator('[data-simulated="true"]').textContent()).toContain("Simulated prices.");

      expect(free.book_order).toEqual(["spx", "qqq", "macro", "crypto"]);
      for (const code of free.book_order) {
        const book = free.books[code]!;
        const section = page.locator(`section[data-book="${code}"]`);
        expect(await section.locator("h3").textContent()).toContain(delayed.books[code]!.title);
        expect(await section.locator("[data-verdict]").textContent()).toBe(book.verdict);
        expect(await section.locator(".stance").textContent()).toBe(book.stance);
        expect(await section.locator(".regime-line").textContent()).toBe(book.line);
        const syms = await section.locator("table.top-names tbody th").allTextContents();
        expect(syms).toEqual(book.top.map((r) => r.sym));
        expect(syms.length).toBeGreaterThan(0);
      }

      // Every sector ETF card of the delayed board, named and scored in text.
      const cards = new Map<SectorLabel, number>();
      for (const card of delayed.books.spx!.sector_cards) if (card.label !== "Index") cards.set(card.label, card.score);
      const cells = page.locator("ul.heat li");
      expect(await cells.count()).toBe(cards.size);
      for (const [sector, score] of cards) {
        const cell = page.locator(`ul.heat li[data-sector="${sector}"]`);
        expect(await cell.locator(".sector").textContent()).toBe(sector);
        expect(await cell.locator(".score").textContent()).toBe(String(Math.round(score)));
        expect(await cell.textContent()).toMatch(/\/ 100 · (very low|low|middle|high|very high)/);
      }
      // The cells are coloured by band: the browser applied the hashed style sheet.
      const backgrounds = await cells.evaluateAll((els) => els.map((el) => (globalThis as unknown as StyleWindow).getComputedStyle(el).backgroundColor));
      expect(backgrounds.every((b) => b !== "rgba(0, 0, 0, 0)")).toBe(true);
      expect(new Set(backgrounds).size).toBeGreaterThan(1);

      await expectPricesAndDocuments(page);
      expect(v.consoleErrors).toEqual([]);
      expect(v.violations).toEqual([]);
      expect(v.failed).toEqual([]);
      // One request: the document. No font, script, style sheet or image is fetched from anywhere.
      expect(v.requests).toEqual([`${stack.base}/`]);
      await page.screenshot({ path: `${SCREENSHOTS}landing-page.png`, fullPage: true });
      expect(statSync(`${SCREENSHOTS}landing-page.png`).size).toBeGreaterThan(10_000);
    } finally {
      await v.page.close();
    }
  });

  it("answers HEAD and If-None-Match, compresses, and keeps one ETag while nothing changed", async () => {
    const get = await raw("GET", "/");
    expect(get.status).toBe(200);
    expectStrictHeaders(get.headers);
    expect(get.headers["cache-control"]).toBe("public, max-age=60");
    expect(get.headers.vary).toBe("Accept-Encoding");
    const etag = String(get.headers.etag);
    expect(etag).toMatch(/^W\/"[0-9a-f]{32}"$/);
    expect(Number(get.headers["content-length"])).toBe(get.body.length);

    const head = await raw("HEAD", "/");
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    expect(head.headers.etag).toBe(etag);
    expect(head.headers["content-length"]).toBe(get.headers["content-length"]);
    expectStrictHeaders(head.headers);

    const again = await raw("GET", "/", { "if-none-match": etag });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    expect(again.headers.etag).toBe(etag);

    const zipped = await raw("GET", "/", { "accept-encoding": "gzip" });
    expect(zipped.headers["content-encoding"]).toBe("gzip");
    expect(gunzipSync(zipped.body).equals(get.body)).toBe(true);
    expect(zipped.headers.etag).toBe(etag);
  });

  it("re-renders when a new delayed board is published, every data value escaped", async () => {
    const before = String((await raw("GET", "/")).headers.etag);
    const hostileDay = fixtureSnapshot({ asofDaily: "2026-11-23", computedAt: "2026-11-23T13:00:00-08:00", seed: 3 });
    hostileDay.board.names = hostileDay.board.names.map((r) => ({ ...r, name: HOSTILE }));
    await stack.publish(hostileDay);
    await stack.publish(fixtureSnapshot({ asofDaily: "2026-11-24", computedAt: "2026-11-24T09:55:00-08:00", seed: 4, intraday: true }));
    await stack.untilServing("2026-11-24");
    await untilPage(200, 'data-asof="2026-11-23"');
    const after = await raw("GET", "/");
    expect(after.headers.etag).not.toBe(before);

    const v = await visit();
    try {
      const { page } = v;
      expect(await page.locator("[data-asof]").textContent()).toContain("From the board of 2026-11-23");
      // The hostile name is shown as text, never parsed: no image, no script, no dialog.
      const names = await page.locator("table.top-names tbody td:nth-child(2)").allTextContents();
      expect(names.length).toBeGreaterThan(0);
      expect(names.every((n) => n === HOSTILE)).toBe(true);
      expect(await page.locator("img").count()).toBe(0);
      expect(await page.locator("script").count()).toBe(0);
      expect(v.dialogs).toEqual([]);
      expect(v.consoleErrors).toEqual([]);
      expect(v.violations).toEqual([]);
    } finally {
      await v.page.close();
    }
  });

  it("says loudly that payments are development payments when payments runs in development mode", async () => {
    await stack.startPayments({ PAYMENTS_MODE: "development" });
    await untilPage(200, 'data-payments="development"');
    const v = await visit();
    try {
      const banner = v.page.locator('[data-payments="development"]');
      expect(await banner.textContent()).toContain("Development payments: local chains and stand-ins, no real money");
      expect(await banner.isVisible()).toBe(true);
      // Styled by the hashed sheet: a solid warning colour, not the page's white.
      const background = await banner.evaluate((el) => (globalThis as unknown as StyleWindow).getComputedStyle(el).backgroundColor);
      expect(background).toBe("rgb(179, 38, 30)");
      expect(v.consoleErrors).toEqual([]);
      expect(v.violations).toEqual([]);
      expect(v.requests).toEqual([`${stack.base}/`]);
      await v.page.screenshot({ path: `${SCREENSHOTS}landing-page-development.png` });
    } finally {
      await v.page.close();
    }
  });
});
