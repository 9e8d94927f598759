/**
 * `npm run bus-credentials -- <dir>`: the bus's credentials for a deployment (docker-compose or
 * Kubernetes). Makes one nkey per principal (kept if already there: run it again after a
 * change to proto's BUS_GRANTS to render the permissions anew with the same keys) and writes:
 *   <dir>/seeds/<principal>.nk   each principal's seed (the secret; mode 0600)
 *   <dir>/seeds.env              the six services' seeds as NATS_NKEY_SEED_<SERVICE>=... lines, for compose's .env
 *   <dir>/authorization.conf     nats-server's authorization block: public keys and permissions only
 * Nothing secret is printed. Rotation: delete a principal's .nk, run again, roll the server and that service.
 */
import fs from "node:fs";
import path from "node:path";
import { BUS_PRINCIPALS, SERVICE_NAMES } from "@board/proto";
import { publicKeyOfSeed, renderAuthorization } from "@board/service-kit/bus-access";
import { localBusSeeds } from "./launcher/nats.js";

const dir = process.argv[2];
if (!dir || process.argv.length > 3) {
  process.stderr.write("usage: npm run bus-credentials -- <dir>\n");
  process.exit(2);
}
const { seeds } = localBusSeeds(path.join(dir, "seeds"));
const users = BUS_PRINCIPALS.map((principal) => ({ principal, nkey: publicKeyOfSeed(seeds[principal]) }));
fs.writeFileSync(path.join(dir, "authorization.conf"), renderAuthorization(users));
// The services' seeds only: the operator's stays in its file, with the operator.
const envLines = SERVICE_NAMES.map((p) => `NATS_NKEY_SEED_${p.toUpperCase().replace(/-/g, "_")}=${seeds[p]}`);
fs.writeFileSync(path.join(dir, "seeds.env"), `${envLines.join("\n")}\n`, { mode: 0o600 });
fs.chmodSync(path.join(dir, "seeds.env"), 0o600);
process.stdout.write(
  [
    `bus credentials in ${dir}: ${BUS_PRINCIPALS.length} principals (${BUS_PRINCIPALS.join(", ")})`,
    `  nats-server: include ${path.join(dir, "authorization.conf")} (public keys and permissions; not secret)`,
    `  docker-compose: append ${path.join(dir, "seeds.env")} to .env, and set BUS_AUTHORIZATION=${path.join(dir, "authorization.conf")}`,
    `  Kubernetes: kubectl create secret generic bus-seeds ${SERVICE_NAMES.map((s) => `--from-file=${s}=${path.join(dir, "seeds", `${s}.nk`)}`).join(" ")}`,
    `             (operator.nk stays with the operator, for npm run license: NATS_NKEY_SEED_FILE)`,
    `             kubectl create secret generic nats-authorization --from-file=${path.join(dir, "authorization.conf")}`,
    "",
  ].join("\n"),
);
