// Every paid read leaves a receipt: which rail, what it cost, the settlement the board reported
// (the PAYMENT-RESPONSE or Payment-Receipt header, decoded), the path and the time. The log is
// kept in memory and handed to a store so a buyer keeps them across runs: none by default,
// localStorage in a browser, a JSON-lines file in Node (node/file-receipts.ts, the Node entry).
// No node: import here: this file is part of the browser entry.

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

/** Where receipts outlive the process. Synchronous: the daily cap counts them before it signs. */
export interface ReceiptStore {
  /** What the store holds (unchecked: the log keeps only what parses as a Receipt). */
  load(): readonly unknown[];
  append(receipt: Receipt): void;
}

/** Keeps nothing beyond the log's own memory: receipts end with the process or the page. */
export function memoryReceipts(): ReceiptStore {
  return { load: () => [], append: () => undefined };
}

/** A Storage-like object: window.localStorage in a browser. */
export interface KeyValueStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}

/** Receipts as a JSON array under `key` of a browser's localStorage (or any Storage given). */
export function localStorageReceipts(key = "board.receipts", storage?: KeyValueStorage): ReceiptStore {
  const store = storage ?? (globalThis as { localStorage?: KeyValueStorage }).localStorage;
  if (!store) throw new Error("no localStorage here: pass a Storage, or use memoryReceipts()");
  const read = (): unknown[] => {
    const parsed = parseLine(store.getItem(key) ?? "[]");
    return Array.isArray(parsed) ? parsed : [];
  };
  return {
    load: read,
    append: (receipt) => store.setItem(key, JSON.stringify([...read(), receipt])),
  };
}

export class ReceiptLog {
  private readonly kept: Receipt[] = [];

  /** Receipts already in `store` are loaded; every new one is appended to it. */
  constructor(readonly store: ReceiptStore = memoryReceipts()) {
    for (const raw of store.load()) {
      const parsed = Receipt.safeParse(raw);
      if (parsed.success) this.kept.push(parsed.data);
    }
  }

  add(receipt: Receipt): void {
    this.kept.push(receipt);
    this.store.append(receipt);
  }

  all(): readonly Receipt[] {
    return [...this.kept];
  }

  /** USDC base units paid since `since` (an instant). */
  spentSince(since: Date): bigint {
    return this.kept.filter((r) => Date.parse(r.at) >= since.getTime()).reduce((sum, r) => sum + BigInt(r.price), 0n);
  }
}

export function parseLine(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return null; // A torn last line (a run stopped mid-write) is skipped.
  }
}
