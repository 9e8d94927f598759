import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { fileReceipts } from "../src/node/file-receipts.js";
import { localStorageReceipts, memoryReceipts, ReceiptLog, type KeyValueStorage, type Receipt } from "../src/receipts.js";

const receipt = (price: string, at: string): Receipt => ({
  rail: "base",
  path: "/api/board/regime",
  url: "http://localhost:8080/api/board/regime",
  price,
  network: "eip155:8453",
  asset: null,
  pay_to: null,
  transaction: `0x${"a".repeat(64)}`,
  payer: null,
  at,
  header: "PAYMENT-RESPONSE",
  decoded: {},
  payment: { header: "PAYMENT-SIGNATURE", value: "x" },
});

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

describe("receipt stores", () => {
  it("memory: a new log starts empty; the log itself counts what it was given", () => {
    const log = new ReceiptLog(memoryReceipts());
    log.add(receipt("5000", "2026-01-02T10:00:00Z"));
    expect(log.spentSince(new Date("2026-01-02T00:00:00Z"))).toBe(5000n);
    expect(new ReceiptLog().all()).toEqual([]);
  });

  it("localStorage: a second log (a reloaded page) finds the receipts; what is not a receipt is skipped", () => {
    const items = new Map<string, string>();
    const storage: KeyValueStorage = { getItem: (k) => items.get(k) ?? null, setItem: (k, v) => void items.set(k, v) };
    const first = new ReceiptLog(localStorageReceipts("r", storage));
    first.add(receipt("5000", "2026-01-02T10:00:00Z"));
    first.add(receipt("250000", "2026-01-02T11:00:00Z"));
    const stored = JSON.parse(items.get("r")!) as unknown[];
    items.set("r", JSON.stringify([...stored, { not: "a receipt" }]));
    const again = new ReceiptLog(localStorageReceipts("r", storage));
    expect(again.all().map((r) => r.price)).toEqual(["5000", "250000"]);
    expect(again.spentSince(new Date("2026-01-02T00:00:00Z"))).toBe(255000n);
    items.set("r", "{torn");
    expect(new ReceiptLog(localStorageReceipts("r", storage)).all()).toEqual([]);
  });

  it("localStorage: none in this runtime is said plainly", () => {
    expect(() => localStorageReceipts()).toThrow(/no localStorage here/);
  });

  it("file: JSON lines appended (0600), read back by the next run; a torn last line is skipped, the next receipt kept whole", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "receipts-"));
    dirs.push(dir);
    const file = path.join(dir, "sub", "receipts.jsonl");
    new ReceiptLog(fileReceipts(file)).add(receipt("5000", "2026-01-02T10:00:00Z"));
    fs.appendFileSync(file, '{"rail":"base","pri');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const again = new ReceiptLog(fileReceipts(file));
    expect(again.all()).toHaveLength(1);
    expect(again.all()[0]!.price).toBe("5000");
    again.add(receipt("250000", "2026-01-02T11:00:00Z"));
    expect(new ReceiptLog(fileReceipts(file)).all().map((r) => r.price)).toEqual(["5000", "250000"]);
  });
});
