import { parseArgs } from "node:util";
import { ArrearsClearRequest, PayerAddress } from "@board/proto";

export const ARREARS_USAGE = `usage:
  arrears list
  arrears clear <payer address> --why "<text>"

A Base read answered before its block whose transfer then failed is a loss recorded against its
payer, whose payments are refused (payment_payer_in_arrears) until it is cleared here.
list shows the payers owing (most owed first): payer, network, owed (USDC base units) and their
uncleared losses (claim_id, amount, reason, detected_at). clear marks that payer's uncleared
losses cleared with why (kept with them), sets what it owes to 0 and lets it pay again.

Talks to the payments service over NATS (NATS_URL, default nats://127.0.0.1:4222) as the
operator: NATS_NKEY_SEED_FILE (or NATS_NKEY_SEED) is the operator's nkey seed; npm start keeps it
in .data/nats/auth/operator.nk.`;

export type ArrearsCommand = { op: "list" } | { op: "clear"; req: ArrearsClearRequest };

export type ParsedArrearsCommand = { ok: true; command: ArrearsCommand } | { ok: false; error: string };

const fail = (error: string): ParsedArrearsCommand => ({ ok: false, error });

/** The operator's arguments, checked against the same contracts payments checks them with. */
export function parseArrearsArgs(argv: readonly string[]): ParsedArrearsCommand {
  const [op, ...rest] = argv;
  switch (op) {
    case "list":
      return rest.length === 0 ? { ok: true, command: { op } } : fail("list takes no arguments");
    case "clear": {
      let parsed: { values: { why?: string }; positionals: string[] };
      try {
        parsed = parseArgs({ args: [...rest], options: { why: { type: "string" } }, strict: true, allowPositionals: true });
      } catch (err) {
        return fail(err instanceof Error ? err.message : String(err));
      }
      const { values, positionals } = parsed;
      if (positionals.length !== 1) return fail("clear takes exactly one payer address");
      const payer = PayerAddress.safeParse(positionals[0]);
      if (!payer.success) return fail(`${positionals[0] ?? ""} is not a payer address (on Base: 0x and 40 hex digits, as arrears list shows it)`);
      if (values.why === undefined) return fail('--why is required: why the debt is cleared (paid, forgiven; kept with each loss)');
      const req = ArrearsClearRequest.safeParse({ payer: payer.data, why: values.why });
      if (!req.success) return fail(`--why: ${req.error.issues[0]?.message ?? "invalid"} (1 to 200 characters)`);
      return { ok: true, command: { op, req: req.data } };
    }
    case undefined:
      return fail("no command given");
    default:
      return fail(`unknown command: ${op}`);
  }
}
