// What the buyer command (`npm run buy`, `board-buy`) prints: one labelled line per fact, so people and tests can read it.

import type { FreshnessBlock } from "@board/proto";
import type { Balance } from "../balance.js";
import type { ClientError } from "../errors.js";
import type { Receipt } from "../receipts.js";
import { formatUsdc } from "../spend-cap.js";

export function line(label: string, text: string): void {
  process.stdout.write(`${label.padEnd(8)} ${text}\n`);
}

export function printReceipt(r: Receipt): void {
  line("price", `${formatUsdc(BigInt(r.price))} USDC (${r.price} base units)${r.pay_to ? ` to ${r.pay_to}` : ""} on ${r.network}`);
  line("receipt", `${r.transaction}  (${r.header}, payer ${r.payer ?? "?"}, ${r.at})`);
}

export function printBalance(after: { ok: true; value: Balance } | { ok: false; error: ClientError }, before: bigint | null): void {
  if (!after.ok) return line("balance", `unavailable: ${after.error.message}`);
  const was = before === null ? "" : ` (was ${formatUsdc(before)})`;
  line("balance", `${formatUsdc(after.value.amount)} USDC after${was}, ${after.value.address} (${after.value.source})`);
}

export function printFreshness(f: FreshnessBlock | null): void {
  if (!f) return;
  line("fresh", `market ${f.market_open ? "open" : "closed"}; data ${f.data_age_seconds} s old; next refresh ${f.next_refresh_at}: ${f.poll_hint}`);
}

/** One line that says what the body holds, whatever the read. */
export function summary(body: unknown): string {
  if (typeof body !== "object" || body === null) return String(body);
  const b = body as Record<string, unknown>;
  const parts: string[] = [];
  if (typeof b.asof_daily === "string") parts.push(`as of ${b.asof_daily}${typeof b.computed_at === "string" ? ` (computed ${b.computed_at}${b.intraday === true ? ", intraday" : ""})` : ""}`);
  if (isRecord(b.books)) {
    const books = Object.entries(b.books).map(([code, book]) => `${code} ${verdictOf(book) ?? describe(book)}`);
    parts.push(books.join(", "));
  }
  for (const key of ["names", "gainers", "losers", "members", "symbols", "candidates"]) {
    if (Array.isArray(b[key])) parts.push(`${(b[key] as unknown[]).length} ${key}`);
  }
  if (isRecord(b.sectors)) parts.push(`${Object.keys(b.sectors).length} sectors`);
  if (parts.length === 0) parts.push(`fields: ${Object.keys(b).join(", ")}`);
  return parts.join("; ");
}

function verdictOf(book: unknown): string | null {
  if (!isRecord(book)) return null;
  const regime = isRecord(book.regime) ? book.regime : book;
  return typeof regime.verdict === "string" ? regime.verdict : null;
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return `${value.length} entries`;
  return isRecord(value) ? `{${Object.keys(value).slice(0, 4).join(", ")}}` : String(value);
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
