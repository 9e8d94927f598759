import { createHash } from "node:crypto";
import { DISCLAIMER, PAID_ROUTES, ROUTES } from "@board/proto";
import { describe, expect, it } from "vitest";
import { renderLandingPage } from "../../src/landing/render.js";
import { STYLE_HASH } from "../../src/landing/style.js";
import { delayedBoard, drawnInput } from "./support.js";

const HOSTILE = `<img src=x onerror="alert('x')"> & </table><script>alert(1)</script>`;
const HOSTILE_ESCAPED = "&lt;img src=x onerror=&quot;alert(&#39;x&#39;)&quot;&gt; &amp; &lt;/table&gt;&lt;script&gt;alert(1)&lt;/script&gt;";

describe("landing page renderer", () => {
  it("escapes a hostile name and provider detail wherever they appear", () => {
    const delayed = delayedBoard((b) => ({
      ...b,
      provider: { ...b.provider, detail: HOSTILE },
      names: b.names.map((r) => ({ ...r, name: HOSTILE })),
    }));
    const input = drawnInput(delayed);
    const out = renderLandingPage(input);
    expect(out).not.toContain("<img");
    expect(out).not.toContain("<script");
    // Every top name of every book, and the provider line.
    const free = input.slice.kind === "drawn" ? input.slice.free : null;
    const tops = Object.values(free!.books).reduce((n, b) => n + b.top.length, 0);
    expect(tops).toBeGreaterThan(3);
    expect(out.split(HOSTILE_ESCAPED).length - 1).toBe(tops + 1);
  });

  it("prices every paid route of the catalogue exactly, from its base units", () => {
    const out = renderLandingPage(drawnInput());
    const rows = [...out.matchAll(/<tr data-path="([^"]+)">(.*?)<\/tr>/g)];
    expect(rows.map((r) => r[1])).toEqual(PAID_ROUTES.map((r) => r.path));
    const usdc = Object.fromEntries(rows.map(([, path, row]) => [path, /<td class="num" data-usdc>([^<]+)<\/td><td class="num">(\d+)<\/td>/.exec(row!)!.slice(1)]));
    expect(usdc["/api/board/agent"]).toEqual(["0.25", "250000"]);
    expect(usdc["/api/board/regime"]).toEqual(["0.005", "5000"]);
    expect(usdc["/api/board/buylist"]).toEqual(["0.02", "20000"]);
    expect(usdc["/api/board/sectors"]).toEqual(["0.01", "10000"]);
    for (const r of PAID_ROUTES) expect(usdc[r.path]![1]).toBe(r.price!.toString());
    // The free-tier column follows the catalogue's tiers.
    expect(rows.find((r) => r[1] === "/api/board/regime")![2]).toContain("included, 25 reads a day");
    expect(rows.find((r) => r[1] === "/api/board/buylist")![2]).toMatch(/<td>no<\/td>$/);
  });

  it("shows each book's regime verdict and top names, the as-of day, the delay and simulated prices", () => {
    const input = drawnInput();
    if (input.slice.kind !== "drawn") throw new Error("drawn input expected");
    const { free } = input.slice;
    const out = renderLandingPage(input);
    expect(out).toContain('From the board of <time datetime="2026-11-19">2026-11-19</time>, one trading day delayed');
    expect(out).toContain('data-simulated="true"><strong>Simulated prices.</strong>');
    for (const code of free.book_order) {
      const book = free.books[code]!;
      const section = new RegExp(`<section class="book" data-book="${code}"[^>]*>([\\s\\S]*?)</section>`).exec(out)![1]!;
      expect(section).toContain(`Regime verdict: <strong data-verdict>${book.verdict}</strong> · <span class="stance">${book.stance}</span>`);
      expect(section).toContain(book.line);
      for (const r of book.top) expect(section).toContain(`<th scope="row">${r.sym}</th>`);
    }
  });

  it("says where real prices come from when they are not simulated", () => {
    const out = renderLandingPage(drawnInput(delayedBoard((b) => ({ ...b, provider: { name: "vendor", detail: "daily bars", simulated: false } }))));
    expect(out).toContain('data-simulated="false">Prices from the vendor provider (daily bars).');
    expect(out).not.toContain("Simulated prices");
  });

  it("renders the warming-up page with prices, payment and documents, and no slice", () => {
    const out = renderLandingPage({ slice: { kind: "warming_up" }, routes: ROUTES });
    expect(out).toContain('data-board="warming_up"><strong>The board is warming up.</strong>');
    expect(out).not.toContain('class="heat"');
    expect(out).not.toContain('class="book"');
    expect(out.match(/<tr data-path=/g)).toHaveLength(PAID_ROUTES.length);
    expect(out).toContain("GatewayWalletBatched");
  });

  it("puts the development-payments banner first when payments runs development chains, and only then", () => {
    const banner = "Development payments: local chains and stand-ins, no real money";
    for (const slice of [drawnInput().slice, { kind: "warming_up" as const }]) {
      const out = renderLandingPage({ slice, routes: ROUTES, payments: "development" });
      expect(out).toContain(`<body>\n<p class="dev-payments" role="alert" data-payments="development"><strong>${banner}.</strong>`);
    }
    expect(renderLandingPage({ ...drawnInput(), payments: "production" })).not.toContain(banner);
    expect(renderLandingPage({ ...drawnInput(), payments: null })).not.toContain(banner);
    expect(renderLandingPage(drawnInput())).not.toContain("data-payments");
  });

  it("is one accessible document: language, title, headings, the disclaimer and every document link", () => {
    const out = renderLandingPage(drawnInput());
    expect(out.startsWith("<!doctype html>\n<html lang=\"en\">")).toBe(true);
    expect(out).toMatch(/<title>[^<]+<\/title>/);
    expect(out.match(/<h1>/g)).toHaveLength(1);
    expect(out).toContain(DISCLAIMER);
    for (const path of ["/llms.txt", "/openapi.json", "/.well-known/api-catalog", "/.well-known/mcp/server-card.json", "/mcp", "/api", "/api/board/status", "/api/board/symbols", "/api/board/free"])
      expect(out).toContain(`<a href="${path}">`);
  });

  it("carries exactly the one style sheet the CSP hash admits, no style attribute and no script", () => {
    const out = renderLandingPage(drawnInput());
    const sheets = [...out.matchAll(/<style>([\s\S]*?)<\/style>/g)];
    expect(sheets).toHaveLength(1);
    expect(`'sha256-${createHash("sha256").update(sheets[0]![1]!, "utf8").digest("base64")}'`).toBe(STYLE_HASH);
    expect(out).not.toMatch(/\sstyle=/);
    expect(out).not.toMatch(/<script/i);
  });
});
