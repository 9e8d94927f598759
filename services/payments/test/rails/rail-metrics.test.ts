import { createMetrics } from "@board/service-kit";
import type { PaymentRails } from "@board/proto";
import { describe, expect, it } from "vitest";
import { gaugeRails } from "../../src/rails/rail-metrics.js";

describe("payments_mode and payments_rail_up", () => {
  it("say the mode, each configured rail live (1) or down (0), and a live rail's warnings; a rail not configured has no series", async () => {
    const metrics = createMetrics("payments");
    let report = {
      mode: "production",
      rails: { base: "live", solana: "down", algorand: "off", batched: "off", mpp: "live" },
      warnings: { base: ["facilitator_balance_low"] },
    } as unknown as PaymentRails;
    gaugeRails(metrics, () => report);
    let text = await metrics.registry.metrics();
    expect(text).toContain('payments_mode{mode="production",service="payments"} 1\n');
    expect(text).toContain('payments_mode{mode="development",service="payments"} 0\n');
    expect(text).toContain('payments_rail_up{rail="base",service="payments"} 1\n');
    expect(text).toContain('payments_rail_up{rail="solana",service="payments"} 0\n');
    expect(text).toContain('payments_rail_up{rail="mpp",service="payments"} 1\n');
    expect(text).not.toContain('rail="algorand"');
    expect(text).toContain('payments_rail_warning{rail="base",warning="facilitator_balance_low",service="payments"} 1\n');
    expect(text).toContain('payments_rail_warning{rail="base",warning="multicall3_missing",service="payments"} 0\n');
    expect(text).toContain('payments_rail_warning{rail="mpp",warning="facilitator_balance_low",service="payments"} 0\n');
    expect(text).not.toContain('payments_rail_warning{rail="solana"');
    report = { ...report, mode: "development", rails: { ...report.rails, solana: "live" } } as PaymentRails;
    text = await metrics.registry.metrics();
    expect(text).toContain('payments_mode{mode="development",service="payments"} 1\n');
    expect(text).toContain('payments_rail_up{rail="solana",service="payments"} 1\n');
  });
});
