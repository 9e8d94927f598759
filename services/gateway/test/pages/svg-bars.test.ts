import { describe, expect, it } from "vitest";
import { domainOf, renderBarChart, xOf } from "../../src/pages/svg-bars.js";

/** The attributes of each <g class="bar">'s <rect>, by the bar's key. */
function rects(svg: string): Map<string, { x: number; width: number; fill: string }> {
  const out = new Map<string, { x: number; width: number; fill: string }>();
  for (const g of svg.matchAll(/<g class="bar" data-key="([^"]*)"[^>]*>(.*?)<\/g>/g)) {
    const r = /<rect x="([^"]+)" y="[^"]+" width="([^"]+)" height="[^"]+" fill="([^"]+)"\/>/.exec(g[2]!);
    if (r) out.set(g[1]!, { x: Number(r[1]), width: Number(r[2]), fill: r[3]! });
  }
  return out;
}

const zeroOf = (svg: string) => Number(/<line x1="([^"]+)"/.exec(svg)![1]);

describe("svg bar charts", () => {
  it("keeps zero inside the domain, and a flat or empty chart drawable", () => {
    expect(domainOf([2, 5])).toEqual({ lo: 0, hi: 5 });
    expect(domainOf([-3, -1])).toEqual({ lo: -3, hi: 0 });
    expect(domainOf([-2, 4])).toEqual({ lo: -2, hi: 4 });
    expect(domainOf([])).toEqual({ lo: 0, hi: 1 });
    expect(domainOf([0, 0])).toEqual({ lo: 0, hi: 1 });
    const d = domainOf([-2, 4]);
    expect(xOf(4, d) - xOf(0, d)).toBeCloseTo(2 * (xOf(0, d) - xOf(-2, d)), 6);
  });

  it("draws a positive bar right of zero and a negative one left of it, in proportion, coloured by sign", () => {
    const svg = renderBarChart({
      id: "t",
      title: "Title",
      desc: "Desc.",
      bars: [
        { key: "UP", label: "Up", value: 4, detail: "8 obs" },
        { key: "DOWN", label: "Down", value: -2, detail: "3 obs" },
        { key: "NONE", label: "None", value: null, detail: "" },
      ],
    }).markup;
    const zero = zeroOf(svg);
    const r = rects(svg);
    expect(r.get("UP")!.x).toBeCloseTo(zero, 1);
    expect(r.get("DOWN")!.x + r.get("DOWN")!.width).toBeCloseTo(zero, 1);
    expect(r.get("UP")!.width / r.get("DOWN")!.width).toBeCloseTo(2, 1);
    expect(r.get("UP")!.fill).not.toBe(r.get("DOWN")!.fill);
    // Nothing measured is no bar and says so, never a zero-length bar.
    expect(r.has("NONE")).toBe(false);
    expect(svg).toContain('data-key="NONE" data-value=""');
    expect(svg).toMatch(/<g class="bar" data-key="NONE"[^>]*><title>None: no observations<\/title>/);
    expect(svg).toContain('data-key="UP" data-value="4"');
    expect(svg).toContain("<title>Down: -2.00% (3 obs)</title>");
  });

  it("is an accessible image: role, title and desc referenced by id, every value in the description", () => {
    const svg = renderBarChart({ id: "c1", title: "Excess by state", desc: "Mean excess.", bars: [{ key: "READY", label: "READY", value: 1.25, detail: "" }] }).markup;
    expect(svg).toMatch(/^<svg class="bars" role="img" aria-labelledby="c1-t c1-d"/);
    expect(svg).toContain('<title id="c1-t">Excess by state</title>');
    expect(svg).toContain('<desc id="c1-d">Mean excess. READY: +1.25%.</desc>');
  });

  it("escapes every label and detail", () => {
    const svg = renderBarChart({ id: "x", title: "<b>", desc: "&", bars: [{ key: '"k', label: "<script>", value: 1, detail: "a<b" }] }).markup;
    expect(svg).not.toContain("<script>");
    expect(svg).not.toContain("<b>");
    expect(svg).toContain("&lt;script&gt;");
    expect(svg).toContain('data-key="&quot;k"');
    expect(svg).toContain("a&lt;b");
  });

  it("colours a series by its series, not its sign", () => {
    const svg = renderBarChart({
      id: "p",
      title: "t",
      desc: "d",
      bars: [
        { key: "m", label: "model", value: -1, detail: "", series: "model" },
        { key: "i", label: "index", value: 1, detail: "", series: "index" },
      ],
    }).markup;
    const r = rects(svg);
    expect(r.get("m")!.fill).toBe("#0b57d0");
    expect(r.get("i")!.fill).toBe("#5f6368");
    expect(svg).toContain('data-series="model"');
  });
});
