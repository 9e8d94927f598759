import type { EntryState, NameSeries } from "@board/proto";
import { describe, expect, it } from "vitest";
import { renderChart } from "../../src/pages/chart.js";
import { sectorOf, sectorSlug } from "../../src/landing/sector-path.js";

const series: NameSeries = {
  version: 1,
  sym: "ABC",
  asof_daily: "2026-11-20",
  computed_at: "2026-11-20T13:00:00-08:00",
  dates: ["2026-11-16", "2026-11-17", "2026-11-18", "2026-11-19", "2026-11-20"],
  close: [10, 11, 12, 11.5, 13],
  sma50: [10, 10.2, 10.4, 10.5, 10.7],
  sma200: [9, 9.1, 9.2, 9.3, 9.4],
  ema21: [10, 10.5, 11, 11.2, 11.6],
};

const chart = (states?: ReadonlyMap<string, EntryState>, title = "ABC closes") =>
  renderChart({ id: "c", title, desc: "five sessions", series, ...(states && { states }), levels: [{ kind: "stop", value: 8.5 }] }).markup;

const attrs = (markup: string, re: RegExp) => [...markup.matchAll(re)].map((m) => m.slice(1));

describe("chart", () => {
  it("draws a band only over sessions whose state is known, merging runs, and none when none is known", () => {
    const some = chart(
      new Map<string, EntryState>([
        ["2026-11-17", "SETUP"],
        ["2026-11-18", "SETUP"],
        ["2026-11-20", "READY"],
      ]),
    );
    expect(attrs(some, /data-state="(\w+)" data-from="([\d-]+)" data-to="([\d-]+)"/g)).toEqual([
      ["SETUP", "2026-11-17", "2026-11-18"],
      ["READY", "2026-11-20", "2026-11-20"],
    ]);
    expect(chart(new Map())).not.toContain("data-state=");
    expect(chart()).not.toContain("data-state=");
  });

  it("puts every close on the scale it states, and the levels widen it", () => {
    const markup = chart();
    const [yMin, yMax, top, h] = ["data-y-min", "data-y-max", "data-top", "data-plot-height"].map((a) => Number(new RegExp(`${a}="([^"]+)"`).exec(markup)![1]));
    expect(yMin).toBeLessThan(8.5);
    const points = attrs(markup, /cy="([\d.]+)" r="1" data-date="([\d-]+)" data-close="([\d.]+)"/g);
    expect(points.map((p) => p[1])).toEqual(series.dates);
    for (const [cy, , close] of points) expect(Math.abs(Number(cy) - (top! + ((yMax! - Number(close)) / (yMax! - yMin!)) * h!))).toBeLessThan(0.01);
    expect(markup).toContain('data-level="stop" data-value="8.5"');
  });

  it("escapes its title and description, and names itself for assistive technology", () => {
    const markup = chart(undefined, `<script>x</script> & "q"`);
    expect(markup).not.toContain("<script>");
    expect(markup).toContain('role="img" aria-labelledby="c-title c-desc"');
    expect(markup).toContain("&lt;script&gt;x&lt;/script&gt; &amp; &quot;q&quot;");
  });
});

describe("sector slugs", () => {
  it("round-trip every label, and take the label itself in any case", () => {
    expect(sectorSlug("Biotech & Pharma")).toBe("biotech-pharma");
    expect(sectorOf("biotech-pharma")).toBe("Biotech & Pharma");
    expect(sectorOf("REAL ESTATE")).toBe("Real Estate");
    expect(sectorOf("nope")).toBeNull();
  });
});
