import { createHash } from "node:crypto";
import { DISCLAIMER, PAID_ROUTES, ROUTES, type ProviderInfo } from "@board/proto";
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
      for (const r of book.top) expect(section).toContain(`<th scope="row"><a href="/board/${r.sym}">${r.sym}</a></th>`);
    }
  });

  it("says where real prices come from when they are not simulated: the vendor, its feed and how late, in words", () => {
    const cases: { provider: ProviderInfo; line: string }[] = [
      {
        provider: { name: "vendor", detail: "grouped daily bars", simulated: false, vendor: "polygon", feed: "starter", delay: "delayed_15m" },
        line: "Prices from Polygon.io (Starter plan), 15-minute delayed. Source: grouped daily bars.",
      },
      {
        provider: { name: "vendor", detail: "grouped daily bars", simulated: false, vendor: "polygon", delay: "delayed_15m" },
        line: "Prices from Polygon.io, 15-minute delayed. Source: grouped daily bars.",
      },
      {
        provider: { name: "vendor", detail: "end of day", simulated: false, vendor: "polygon", feed: "basic", delay: "end_of_day" },
        line: "Prices from Polygon.io (Basic plan), end-of-day prices: the board is computed from each session&#39;s closing bars, not during the session. Source: end of day.",
      },
      {
        provider: { name: "vendor", detail: "snapshots", simulated: false, vendor: "polygon", feed: "advanced", delay: "real_time" },
        line: "Prices from Polygon.io (Advanced plan), real-time. Source: snapshots.",
      },
      {
        provider: { name: "vendor", detail: "IEX", simulated: false, vendor: "alpaca", feed: "iex", delay: "real_time" },
        line: "Prices from Alpaca (IEX feed: one exchange&#39;s trades), real-time. Source: IEX.",
      },
      {
        provider: { name: "vendor", detail: "SIP", simulated: false, vendor: "alpaca", feed: "delayed_sip", delay: "delayed_15m" },
        line: "Prices from Alpaca (SIP feed: all US exchanges), 15-minute delayed. Source: SIP.",
      },
      {
        provider: { name: "vendor", detail: "replayed", simulated: false, vendor: "polygon", feed: "starter", delay: "recorded" },
        line: "Prices from Polygon.io (Starter plan), recorded vendor responses replayed: not live prices. Source: replayed.",
      },
      {
        provider: { name: "vendor", detail: "some feed", simulated: false, vendor: "acme", feed: "gold", delay: "real_time" },
        line: "Prices from acme (gold feed), real-time. Source: some feed.",
      },
      // A board published before the vendor and delay were said.
      {
        provider: { name: "vendor", detail: "daily bars", simulated: false },
        line: "Prices from the vendor provider; the board does not say how late they are. Source: daily bars.",
      },
      { provider: { name: "csv", detail: "bars.csv", simulated: false }, line: "Prices from a CSV file of daily bars; the board does not say how late they are. Source: bars.csv." },
    ];
    for (const { provider, line } of cases) {
      const out = renderLandingPage(drawnInput(delayedBoard((b) => ({ ...b, provider }))));
      expect(out).toContain(`<p data-delay="${provider.delay ?? "unstated"}" data-simulated="false">${line}</p>`);
      expect(out).not.toContain("Simulated prices");
      expect(out).not.toContain('data-simulated="true"');
    }
  });

  it("shows the simulated-prices notice for the simulator, and only the notice", () => {
    for (const provider of [
      { name: "simulator", detail: "seed 1", simulated: true },
      { name: "simulator", detail: "seed 1", simulated: true, delay: "simulated" },
    ] satisfies ProviderInfo[]) {
      const out = renderLandingPage(drawnInput(delayedBoard((b) => ({ ...b, provider }))));
      expect(out).toContain(
        '<p class="notice" data-delay="simulated" data-simulated="true"><strong>Simulated prices.</strong> This board was computed from a market simulator (seed 1), not from real market prices.</p>',
      );
      expect(out).not.toContain("Prices from");
      expect(out).not.toContain('data-simulated="false"');
    }
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
