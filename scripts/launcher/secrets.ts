import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";

/**
 * A root secret (IDENTITY_SECRET, RECEIPT_SECRET, the embedded database's passwords) for a developer's machine when none is
 * given: generated once, kept in the data directory as `<name>.secret` (mode 0600), never in
 * the repository. Production sets it from its secret store.
 */
export function localSecret(dataDir: string, name: "identity" | "receipt" | "database"): string {
  const file = path.join(dataDir, `${name}.secret`);
  try {
    return fs.readFileSync(file, "utf8").trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
  fs.mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(32).toString("base64url");
  fs.writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: "wx" });
  return secret;
}
