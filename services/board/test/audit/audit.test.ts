import { PerfView, SignalAuditView } from "@board/proto";
import { describe, expect, it } from "vitest";
import type { MarkedDay } from "../../src/audit/forward.js";
import { perfView } from "../../src/audit/perf.js";
import { signalAuditView } from "../../src/audit/signal-audit.js";

const SESSIONS = ["2026-11-02", "2026-11-03", "2026-11-04", "2026-11-05", "2026-11-06", "2026-11-09", "2026-11-10", "2026-11-11", "2026-11-12"];
const freshness = { market_open: false, data_age_seconds: 0, next_refresh_at: "2026-11-13T09:30:00-05:00", poll_hint: "x" };

/** SPY flat; AAA (READY, decile 10, in the lane) +1% a day; BBB (FALLING, decile 1) -1% a day. */
function day(i: number, committedLate = false): MarkedDay {
  const date = SESSIONS[i]!;
  const computedAt = new Date(`${date}T21:00:00Z`);
  return {
    asofDaily: date,
    computedAt,
    committedAt: committedLate ? new Date("2027-01-01T00:00:00Z") : new Date(computedAt.getTime() + 1000),
    marks: {
      names: { SPY: [100, "WAIT", 5, "spx"], AAA: [100 * 1.01 ** i, "READY", 10, "spx"], BBB: [100 * 0.99 ** i, "FALLING", 1, "spx"] },
      index: { spx: "SPY" },
      lanes: { spx: ["AAA"] },
    },
  };
}

describe("signal audit", () => {
  it("says plainly when there is too little committed history, and reports nothing", () => {
    const audit = SignalAuditView.parse({ ...signalAuditView([day(0), day(1), day(2)]), freshness });
    expect(audit.status).toBe("insufficient_history");
    expect(audit.horizons.every((h) => h.by_state.length === 0)).toBe(true);
  });

  it("measures forward excess returns by state and decile", () => {
    const audit = SignalAuditView.parse({ ...signalAuditView(SESSIONS.map((_, i) => day(i))), freshness });
    expect(audit.status).toBe("ok");
    const one = audit.horizons.find((h) => h.sessions === 1)!;
    expect(one.days_measured).toBe(8);
    const ready = one.by_state.find((b) => b.key === "READY")!;
    expect(ready.observations).toBe(8);
    expect(ready.mean_excess_pct).toBeCloseTo(1, 5);
    expect(ready.hit_rate_pct).toBe(100);
    expect(one.by_state.find((b) => b.key === "FALLING")!.mean_excess_pct).toBeCloseTo(-1, 5);
    expect(one.by_opp_decile.find((b) => b.key === "D10")!.mean_excess_pct).toBeCloseTo(1, 5);
    expect(audit.horizons.find((h) => h.sessions === 20)!.days_measured).toBe(0);
  });

  it("ignores boards committed after the later prices existed", () => {
    const audit = signalAuditView(SESSIONS.map((_, i) => day(i, true)));
    expect(audit.status).toBe("insufficient_history");
    expect(audit.horizons[0]!.days_measured).toBe(0);
  });
});

describe("performance", () => {
  it("compounds the lane against the index, percentages only", () => {
    const perf = PerfView.parse({ ...perfView(SESSIONS.map((_, i) => day(i))), freshness });
    expect(perf.status).toBe("ok");
    expect(perf.sessions).toBe(8);
    const spx = perf.books[0]!;
    expect(spx.benchmark).toBe("SPY");
    expect(spx.benchmark_return_pct).toBe(0);
    expect(spx.model_return_pct).toBeCloseTo((1.01 ** 8 - 1) * 100, 1);
  });
});
