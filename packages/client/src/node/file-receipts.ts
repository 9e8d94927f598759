// Receipts appended to a JSON-lines file (one receipt a line, mode 0600), so a buyer keeps them
// across runs and its daily cap counts yesterday's script and today's alike. Node only.

import { appendFileSync, closeSync, existsSync, mkdirSync, openSync, readFileSync, readSync, statSync } from "node:fs";
import path from "node:path";
import { parseLine, type ReceiptStore } from "../receipts.js";

export function fileReceipts(file: string): ReceiptStore & { readonly file: string } {
  return {
    file,
    load: () => (existsSync(file) ? readFileSync(file, "utf8").split("\n").filter((l) => l.trim()).map(parseLine) : []),
    append: (receipt) => {
      mkdirSync(path.dirname(file), { recursive: true });
      // After a torn last line (a run stopped mid-write), a new line first: the receipt stays whole.
      appendFileSync(file, `${endsTorn(file) ? "\n" : ""}${JSON.stringify(receipt)}\n`, { mode: 0o600 });
    },
  };
}

function endsTorn(file: string): boolean {
  if (!existsSync(file)) return false;
  const size = statSync(file).size;
  if (size === 0) return false;
  const last = Buffer.alloc(1);
  const fd = openSync(file, "r");
  try {
    readSync(fd, last, 0, 1, size - 1);
  } finally {
    closeSync(fd);
  }
  return last[0] !== 0x0a;
}
