// Receipts appended to a JSON-lines file (one receipt a line, mode 0600), so a buyer keeps them
// across runs and its daily cap counts yesterday's script and today's alike. Node only.

import { appendFileSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { parseLine, type ReceiptStore } from "../receipts.js";

export function fileReceipts(file: string): ReceiptStore & { readonly file: string } {
  return {
    file,
    load: () => (existsSync(file) ? readFileSync(file, "utf8").split("\n").filter((l) => l.trim()).map(parseLine) : []),
    append: (receipt) => {
      mkdirSync(path.dirname(file), { recursive: true });
      appendFileSync(file, `${JSON.stringify(receipt)}\n`, { mode: 0o600 });
    },
  };
}
