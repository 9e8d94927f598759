import { BUS_ENDPOINTS, BoardReadMeta, ViewName, type ServiceName } from "@board/proto";
import { request, requestBytes, type Runtime } from "@board/service-kit";
import { afterAll, beforeAll, expect, it } from "vitest";
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
  const common = (service: ServiceName) => ({ ...stack.busEnv(service), DATABASE_URL: stack.db.url, HEALTH_PORT: 0, LOG_LEVEL: "warn" });
  // Identity and metering come with the stack. Payments holds receipt keys, so its DID document answers.
  others.push((await startPayments(PaymentsEnv.parse({ ...common("payments"), RECEIPT_SECRET: "contract-test-receipt-secret-0123456789" }))).runtime);
  scanner = await startScanner(ScannerEnv.parse(common("scanner-ingest")));
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
  "payments.v1.receipt": { req: { payer: "0x0000000000000000000000000000000000000001", payment_id: "contract_test_0000000" }, refusal: { status: 404, code: "not_found" } },
  "payments.v1.arrears.clear": { req: { payer: "0x0000000000000000000000000000000000000001", why: "contract test" }, refusal: { status: 404, code: "not_found" } },
  "identity.v1.resolve": { req: { credentials: { board_key: "bfk_unknown" } } },
  "identity.v1.free_key": { req: { email: "contract@example.com" } },
  "identity.v1.sign_in_challenge": { req: { resource_url: "http://localhost:8080/api/board/regime" } },
  "identity.v1.sign_in_verify": {
    req: {
      payload: {
        domain: "localhost:8080",
        address: "0x0000000000000000000000000000000000000001",
        uri: "http://localhost:8080/",
        version: "1",
        chainId: "eip155:8453",
        type: "eip191",
        nonce: "00000000",
        issuedAt: "2026-11-20T00:00:00Z",
        signature: "0x00",
      },
    },
  },
  "identity.v1.token": { req: { grant_type: "client_credentials" } },
  "identity.v1.authorize": { req: { response_type: "code", client_id: "bcl_unknown" } },
  "identity.v1.consent": { req: { request: "not.sealed", decision: "deny" } },
  "identity.v1.register": { req: { metadata: { redirect_uris: ["https://client.example/cb"], token_endpoint_auth_method: "none" } } },
  "identity.v1.license_issue": { req: { kind: "scanner", period: "monthly", holder: "contract test" } },
  "identity.v1.license_cancel": { req: { license_id: "00000000-0000-4000-8000-000000000000" }, refusal: { status: 404, code: "not_found" } },
  "identity.v1.license_renew": { req: { license_id: "00000000-0000-4000-8000-000000000000" }, refusal: { status: 404, code: "not_found" } },
  "identity.v1.license_revoke": { req: { license_id: "00000000-0000-4000-8000-000000000000", reason: "contract test" }, refusal: { status: 404, code: "not_found" } },
  "metering.v1.consume": { req: { principal: "ip:127.0.0.1", kind: "anonymous" } },
  "metering.v1.consume_many": { req: { requests: [{ principal: "ip:127.0.0.1", kind: "anonymous" }, { principal: "license:contract", kind: "licensed" }] } },
  "metering.v1.refund": { req: { principal: "key:contract", day: "2026-11-20" } },
  "metering.v1.new_credential": { req: { kind: "wallet", client: "127.0.0.1", wallet: "wallet:eip155:8453:0x0000000000000000000000000000000000000001" } },
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
    const NEEDS_PARAMS: ReadonlySet<string> = new Set(["asof", "name-history", "changes"]);
    for (const view of ViewName.options) {
      try {
        const { meta, body } = await requestBytes(stack.nc, ep, { view });
        BoardReadMeta.parse(meta);
        expect(() => JSON.parse(new TextDecoder().decode(body)), view).not.toThrow();
      } catch (e) {
        // Views of later capabilities are refused with a code, never with a malformed reply;
        // a history read asked without the parameter it needs, with invalid_query naming it.
        if (NEEDS_PARAMS.has(view)) expect(e, view).toMatchObject({ status: 400, code: "invalid_query", worded: true });
        else expect(e, view).toMatchObject({ status: 501, code: "not_implemented" });
      }
    }
  }
});
