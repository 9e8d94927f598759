// Every paid read leaves a receipt: which rail, what it cost, the settlement the board reported
// (the PAYMENT-RESPONSE or Payment-Receipt header, decoded), the path and the time. The log is
// kept in memory and, when given a file, appended to it as JSON lines (one receipt a line), so
// a buyer keeps them across runs.

import { appendFileSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { RAILS } from "./pay/types.js";

export const Receipt = z.object({
  rail: z.enum(RAILS),
  /** The path read, with its query. */
  path: z.string(),
  url: z.string(),
  /** USDC base units paid (6 decimals), as the 402 asked. */
  price: z.string().regex(/^\d+$/),
  network: z.string(),
  asset: z.string().nullable(),
  pay_to: z.string().nullable(),
  /** The settlement's reference: a transaction hash or id (Circle's batched rail: its transfer id). */
  transaction: z.string(),
  payer: z.string().nullable(),
  /** When the paid read was answered. */
  at: z.iso.datetime({ offset: true }),
  /** The header the settlement came in, and its content decoded. */
  header: z.enum(["PAYMENT-RESPONSE", "Payment-Receipt"]),
  decoded: z.record(z.string(), z.unknown()),
  /** The payment as sent (single use: the board refuses it a second time). */
  payment: z.object({ header: z.string(), value: z.string() }),
});
export type Receipt = z.infer<typeof Receipt>;

export class ReceiptLog {
  private readonly kept: Receipt[] = [];

  /** `file`: a JSON-lines file the receipts are appended to; receipts already in it are loaded. */
  constructor(readonly file: string | null = null) {
    if (file && existsSync(file)) {
      for (const line of readFileSync(file, "utf8").split("\n")) {
        const parsed = line.trim() ? Receipt.safeParse(parseLine(line)) : null;
        if (parsed?.success) this.kept.push(parsed.data);
      }
    }
  }

  add(receipt: Receipt): void {
    this.kept.push(receipt);
    if (this.file) {
      mkdirSync(path.dirname(this.file), { recursive: true });
      appendFileSync(this.file, `${JSON.stringify(receipt)}\n`, { mode: 0o600 });
    }
  }

  all(): readonly Receipt[] {
    return [...this.kept];
  }

  /** USDC base units paid since `since` (an instant). */
  spentSince(since: Date): bigint {
    return this.kept.filter((r) => Date.parse(r.at) >= since.getTime()).reduce((sum, r) => sum + BigInt(r.price), 0n);
  }
}

function parseLine(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return null; // A torn last line (a run stopped mid-write) is skipped.
  }
}
