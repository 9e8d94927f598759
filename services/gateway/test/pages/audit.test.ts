import { createHash } from "node:crypto";
import { PerfView, SignalAuditView, type BoardStatus } from "@board/proto";
import { describe, expect, it } from "vitest";
import { AUDIT_STYLE, AUDIT_STYLE_HASH, firstFiguresAfter, minimumDays, renderAuditPage } from "../../src/pages/audit.js";

const freshness = { market_open: false, data_age_seconds: 0, next_refresh_at: "2026-11-13T09:30:00-05:00", poll_hint: "x" };
const bucket = (key: string, n: number, mean: number | null) => ({ key, observations: n, mean_excess_pct: mean, hit_rate_pct: n ? 50 : null });
const STATES = ["READY", "SETUP", "WAIT", "CHASE", "FALLING"];

function audit(status: "ok" | "insufficient_history"): SignalAuditView {
  const ok = status === "ok";
  return SignalAuditView.parse({
    product: "scored-market-board",
    status,
    message: ok ? "Forward returns of 9 committed trading days." : "Only 2 committed day(s) have a next-session close to measure against; the audit reports figures from 5 on. Nothing is estimated or filled in.",
    committed_days: ok ? 9 : 3,
    first_day: "2026-11-02",
    last_day: ok ? "2026-11-12" : "2026-11-04",
    horizons: [1, 5, 20].map((sessions) => ({
      sessions,
      days_measured: ok && sessions < 20 ? 9 - sessions : sessions === 1 ? 2 : 0,
      by_state: ok ? STATES.map((k, i) => bucket(k, sessions < 20 && i < 3 ? 4 : 0, sessions < 20 && i < 3 ? i - 1.5 : null)) : [],
      by_opp_decile: ok ? Array.from({ length: 10 }, (_, i) => bucket(`D${i + 1}`, sessions < 20 ? 2 : 0, sessions < 20 ? i / 3 : null)) : [],
    })),
    method: "method of the audit",
    freshness,
  });
}

function perf(ok: boolean): PerfView {
  return PerfView.parse({
    product: "scored-market-board",
    status: ok ? "ok" : "insufficient_history",
    message: ok ? "Model portfolio over 8 committed sessions." : "Only 2 committed session(s) so far; performance is reported from 5 on.",
    sessions: ok ? 8 : 2,
    first_day: "2026-11-02",
    last_day: "2026-11-12",
    books: [{ book: "spx", benchmark: "SPY", model_return_pct: ok ? 3.1 : null, benchmark_return_pct: ok ? 1.2 : null, excess_pct: ok ? 1.9 : null }],
    method: "method of the model portfolio",
    freshness,
  });
}

const provider = (simulated: boolean) => ({ name: simulated ? "sim" : "polygon", detail: "d", simulated, ...(simulated ? { delay: "simulated" } : { vendor: "polygon", delay: "delayed_15m" }) });
const status = (simulated: boolean) =>
  ({ value: { provider: provider(simulated) } as unknown as BoardStatus, etag: "s" }) satisfies { value: BoardStatus; etag: string };

const page = (a: SignalAuditView, p: PerfView, simulated = true) =>
  renderAuditPage({ kind: "drawn", views: { audit: { value: a, etag: "a" }, perf: { value: p, etag: "p" }, status: status(simulated) } });

describe("audit page", () => {
  it("reads the board's threshold from its own message, and says when a horizon's figures can appear", () => {
    expect(minimumDays(audit("insufficient_history").message)).toBe(5);
    expect(minimumDays("Forward returns of 9 committed trading days.")).toBeNull();
    // Insufficient: five days must mature at one session first (2 Nov + 5 sessions), and the twenty-session horizon needs twenty.
    expect(firstFiguresAfter(audit("insufficient_history"), 1)).toBe("2026-11-09");
    expect(firstFiguresAfter(audit("insufficient_history"), 20)).toBe("2026-12-01");
    // Reporting: a horizon's first figure comes with the first day matured at it.
    expect(firstFiguresAfter(audit("ok"), 20)).toBe("2026-12-01");
  });

  it("draws no chart while history is insufficient, and says when figures appear and what committed before means", () => {
    const out = page(audit("insufficient_history"), perf(false));
    expect(out).not.toContain("<svg");
    expect(out.match(/data-empty="horizon"/g)).toHaveLength(3);
    expect(out).toContain("Figures appear once 5 days have matured at the one-session horizon");
    expect(out).toContain('At the earliest, after the close of <time datetime="2026-11-09">2026-11-09</time>.');
    expect(out).toContain('data-empty="perf"');
    expect(out).toContain("committed before</strong> the later board it is measured against was computed");
  });

  it("draws each measured horizon by state and decile, the model lane against its index, and an empty state for an unmatured horizon", () => {
    const out = page(audit("ok"), perf(true));
    for (const id of ["state-1", "decile-1", "state-5", "decile-5", "perf"]) expect(out, id).toContain(`data-chart="${id}"`);
    expect(out).not.toContain('data-chart="state-20"');
    expect(out).toMatch(/data-horizon="20"[\s\S]*?data-empty="horizon"[\s\S]*?datetime="2026-12-01"/);
    expect(out).toContain('data-key="SETUP" data-value="-0.5"');
    expect(out).toContain('data-key="spx:model" data-value="3.1" data-series="model"');
    expect(out).toContain('data-key="spx:index" data-value="1.2" data-series="index"');
    // Headings in order: h1, then h2 sections, h3 horizons, h4 charts; never a level skipped.
    const levels = [...out.matchAll(/<h([1-6])[ >]/g)].map((m) => Number(m[1]));
    expect(levels[0]).toBe(1);
    for (let i = 1; i < levels.length; i++) expect(levels[i]! - levels[i - 1]!, `heading ${i}`).toBeLessThanOrEqual(1);
  });

  it("shows the simulated-prices notice only for the simulator's board, and admits its one sheet by hash", () => {
    expect(page(audit("ok"), perf(true), true)).toContain('data-simulated="true"');
    expect(page(audit("ok"), perf(true), false)).not.toContain('data-simulated="true"');
    expect(AUDIT_STYLE_HASH).toBe(`'sha256-${createHash("sha256").update(AUDIT_STYLE, "utf8").digest("base64")}'`);
    expect(page(audit("ok"), perf(true))).toContain(`<style>${AUDIT_STYLE}</style>`);
  });

  it("says the board is warming up or away, without figures", () => {
    expect(renderAuditPage({ kind: "warming_up" })).toContain('data-board="warming_up"');
    expect(renderAuditPage({ kind: "unreachable" })).toContain('data-board="unreachable"');
  });
});
