import { BUS_ENDPOINTS, BoardReadMeta, ViewName } from "@board/proto";
import { request, requestBytes, type Runtime } from "@board/service-kit";
import { afterAll, beforeAll, expect, it } from "vitest";
import { IdentityEnv } from "../../services/identity/src/env.js";
import { startIdentity } from "../../services/identity/src/start.js";
import { MeteringEnv } from "../../services/metering/src/env.js";
import { startMetering } from "../../services/metering/src/start.js";
import { PaymentsEnv } from "../../services/payments/src/env.js";
import { startPayments } from "../../services/payments/src/start.js";
import { ScannerEnv } from "../../services/scanner-ingest/src/env.js";
import { startScanner, type ScannerService } from "../../services/scanner-ingest/src/start.js";
import { Stack, until } from "./harness.js";

const stack = new Stack();
const others: Pick<Runtime<Record<string, unknown>>, "stop">[] = [];
let scanner: ScannerService;

beforeAll(async () => {
  await stack.start();
  await stack.startBoard();
  const common = { NATS_URL: stack.infra.natsUrl, DATABASE_URL: stack.db.url, HEALTH_PORT: 0, LOG_LEVEL: "warn" };
  others.push(await startIdentity(IdentityEnv.parse(common)), await startMetering(MeteringEnv.parse(common)), (await startPayments(PaymentsEnv.parse(common))).runtime);
  scanner = await startScanner(ScannerEnv.parse(common));
  await scanner.ready;
  await until(() => stack.board!.publication()?.views.has("free") === true);
}, 120_000);

afterAll(async () => {
  await scanner?.stop();
  for (const rt of others) await rt.stop();
  await stack.stop();
});

/** A valid request for endpoints that take one, and the refusal it must get when it is refused. */
const SAMPLES: Record<string, { req: unknown; refusal?: { status: number; code: string } }> = {
  "payments.v1.requirements": { req: { path: "/api/board/regime" } },
  "payments.v1.claim": {
    req: { path: "/api/board/regime", carrier: "payment-signature", value: "bm90IGEgcGF5bWVudA==" },
    refusal: { status: 402, code: "payment_invalid_header" },
  },
  "payments.v1.settle": { req: { claim_id: "00000000-0000-4000-8000-000000000000" }, refusal: { status: 402, code: "payment_already_used" } },
  "payments.v1.release": { req: { claim_id: "00000000-0000-4000-8000-000000000000", reason: "contract test" } },
};

it("every endpoint on the bus answers with a reply valid against its proto schema", async () => {
  for (const ep of BUS_ENDPOINTS) {
    if (ep.body === "json") {
      const sample = SAMPLES[ep.subject];
      if (sample?.refusal) {
        await expect(request(stack.nc, ep, sample.req), ep.subject).rejects.toMatchObject(sample.refusal);
        continue;
      }
      ep.reply.parse(await request(stack.nc, ep, sample?.req ?? {}));
      continue;
    }
    for (const view of ViewName.options) {
      try {
        const { meta, body } = await requestBytes(stack.nc, ep, { view });
        BoardReadMeta.parse(meta);
        expect(() => JSON.parse(new TextDecoder().decode(body)), view).not.toThrow();
      } catch (e) {
        // Views of later capabilities are refused with a code, never with a malformed reply.
        expect(e, view).toMatchObject({ status: 501, code: "not_implemented" });
      }
    }
  }
});
