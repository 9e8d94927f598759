// The development wallets file `npm start` writes (.data/dev-wallets.json), read from disk. Node only.

import { readFileSync } from "node:fs";
import { parseDevWallets, type DevWallets } from "../dev-wallets.js";

export { DevEvmBuyer, DevWallets, parseDevWallets } from "../dev-wallets.js";

/** Reads and checks a dev-wallets file; throws naming the file when it is missing or malformed. */
export function readDevWallets(file: string): DevWallets {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    throw new Error(`${file} is missing: start the stack with \`npm start\` (no rail configured) to get development wallets`);
  }
  return parseDevWallets(JSON.parse(text), file);
}
