import { describe, expect, it } from "vitest";
import { parseArrearsArgs } from "../../src/cli/arrears-args.js";

const payer = "0x8Ba1f109551bD432803012645Ac136ddd64DBA72";

describe("arrears CLI arguments", () => {
  it("reads list and clear", () => {
    expect(parseArrearsArgs(["list"])).toEqual({ ok: true, command: { op: "list" } });
    expect(parseArrearsArgs(["clear", payer, "--why", " paid by bank transfer "])).toEqual({
      ok: true,
      command: { op: "clear", req: { payer, why: "paid by bank transfer" } },
    });
    expect(parseArrearsArgs(["clear", "--why=forgiven", payer.toLowerCase()]).ok).toBe(true);
  });

  it("refuses bad arguments with a reason", () => {
    const cases: [string[], RegExp][] = [
      [[], /no command/],
      [["forgive", payer], /unknown command: forgive/],
      [["list", "extra"], /no arguments/],
      [["clear"], /exactly one payer address/],
      [["clear", "--why", "paid"], /exactly one payer address/],
      [["clear", payer, payer, "--why", "paid"], /exactly one payer address/],
      [["clear", "0x1234", "--why", "paid"], /not a payer address/],
      [["clear", "payer; drop table", "--why", "paid"], /not a payer address/],
      [["clear", payer], /--why is required/],
      [["clear", payer, "--why", "   "], /--why: /],
      [["clear", payer, "--why", "x".repeat(201)], /--why: .*1 to 200/],
      [["clear", payer, "--why", "paid", "--reason", "paid"], /--reason/],
    ];
    for (const [args, reason] of cases) {
      const parsed = parseArrearsArgs(args);
      expect(parsed.ok, args.join(" ")).toBe(false);
      if (!parsed.ok) expect(parsed.error, args.join(" ")).toMatch(reason);
    }
  });
});
