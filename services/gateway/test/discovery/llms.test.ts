import { MCP_TOOLS, PAID_ROUTES, ROUTES } from "@board/proto";
import { describe, expect, it } from "vitest";
import { llmsTxt } from "../../src/discovery/llms.js";
import { METHODOLOGY_SECTIONS } from "../../src/discovery/methodology.js";
import { usdc } from "../../src/discovery/terms.js";

const base = new URL("https://board.example.org");
const text = llmsTxt(base);
const lines = text.split("\n");

/** The H2 sections: their title and their lines. */
function sections(): { title: string; body: string[] }[] {
  const out: { title: string; body: string[] }[] = [];
  for (const line of lines) {
    if (line.startsWith("## ")) out.push({ title: line.slice(3), body: [] });
    else out.at(-1)?.body.push(line);
  }
  return out;
}
const section = (title: string) => sections().find((s) => s.title === title)?.body.join("\n") ?? "";
const LINK = /^- \[[^\]]+\]\((https?:\/\/[^)\s]+)\)(: .+)?$/;

describe("llmsTxt", () => {
  it("has the llmstxt.org structure: H1, blockquote summary, prose, H2 sections of link lists", () => {
    expect(lines[0]).toBe("# Scored Market Board");
    expect(lines[1]).toBe("");
    expect(lines[2]).toMatch(/^> \S/);
    const firstH2 = lines.findIndex((l) => l.startsWith("## "));
    expect(firstH2).toBeGreaterThan(3);
    // Prose between the summary and the first section, and no other H1.
    expect(lines.slice(3, firstH2).some((l) => l.length > 40 && !l.startsWith("#"))).toBe(true);
    expect(lines.filter((l) => /^# /.test(l))).toHaveLength(1);
    for (const s of sections()) expect(s.body.some((l) => LINK.test(l)), s.title).toBe(true);
    expect(sections().map((s) => s.title)).toEqual(expect.arrayContaining(["Free reads", "Paid reads", "Access tiers", "How to pay", "How to poll", "Limits", "MCP server", "Methodology", "Optional"]));
  });

  it("lists every paid route with its price in USDC, on one line", () => {
    const paid = section("Paid reads").split("\n");
    for (const route of PAID_ROUTES) {
      const line = paid.find((l) => l.startsWith(`- [${route.path}](`));
      expect(line, route.path).toBeDefined();
      expect(line).toContain(`${usdc(route.price!)} USDC (${route.price} base units)`);
    }
    expect(usdc(250000n)).toBe("0.25");
  });

  it("links every free read and live read at the public base URL", () => {
    for (const route of ROUTES.filter((r) => r.kind === "free" || r.kind === "live")) expect(text).toContain(`](https://board.example.org${route.path}`);
    expect(text).toContain("(https://board.example.org/api/board/asof?sample=1)");
    expect(text).toContain("(https://board.example.org/api/board/agent?preview=1)");
    for (const l of lines.filter((l) => l.startsWith("- ["))) {
      const url = LINK.exec(l)?.[1];
      expect(url, l).toBeDefined();
      expect(url!.startsWith("https://board.example.org/") || url!.startsWith("https://x402.org"), l).toBe(true);
    }
  });

  it("says how to get each tier, how to pay and how to poll", () => {
    const tiers = section("Access tiers");
    for (const header of ["X-Board-Key", "SIGN-IN-WITH-X", "X-License-Key", "Authorization: Bearer", "Authorization: Payment", "GatewayWalletBatched", "/api/key", "/oauth/token"]) expect(tiers).toContain(header);
    const pay = section("How to pay");
    for (const word of ["402", "PAYMENT-REQUIRED", "PAYMENT-SIGNATURE", "X-PAYMENT", "PAYMENT-RESPONSE", "eip155:8453"]) expect(pay).toContain(word);
    const poll = section("How to poll");
    for (const word of ["/api/board/state", "next_refresh_at", "X-Board-Next-Refresh", "X-Board-Market-Open", "X-Board-Data-Age"]) expect(poll).toContain(word);
  });

  it("states the limits from proto's constants", () => {
    const limits = section("Limits");
    expect(limits).toContain("25 reads a day");
    expect(limits).toContain("a token bucket of 20 requests per principal");
    expect(limits).toContain("refilled at 10 per second");
    expect(limits).toContain("40 per client address");
    expect(limits).toContain("refilled at 20 per second");
    expect(limits).toContain("90 days");
  });

  it("names the MCP server and every tool", () => {
    const mcp = section("MCP server");
    expect(mcp).toContain("(https://board.example.org/mcp)");
    for (const tool of MCP_TOOLS) expect(mcp).toContain(`\`${tool.name}\``);
  });

  it("carries the methodology prose", () => {
    const methodology = section("Methodology");
    for (const s of METHODOLOGY_SECTIONS) {
      expect(methodology).toContain(`### ${s.title}`);
      expect(methodology).toContain(s.body);
    }
  });
});
