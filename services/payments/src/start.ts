import { fileURLToPath } from "node:url";
import { paymentsCatalogue, paymentsClaim, paymentsRelease, paymentsRequirements, paymentsSettle, paymentsStatus, identitySignInChallenge, ROUTE_BY_PATH, SETTLEMENT_EVENT_SUBJECT } from "@board/proto";
import { bind, BusError, request, startRuntime, type Runtime } from "@board/service-kit";
import pkg from "../package.json" with { type: "json" };
import { ClaimDesk } from "./claims/claim-desk.js";
import { reconcileOpenClaims, type ReconcileResult } from "./claims/reconcile.js";
import { countSettlements } from "./claims/settlement-outcomes.js";
import { ClaimStore } from "./claims/store.js";
import * as schema from "./db/schema.js";
import type { PaymentsEnv } from "./env.js";
import { configuredRails } from "./rails/configured.js";
import type { X402Rail } from "./rails/rail.js";
import { LocalFacilitator } from "./x402/local-facilitator.js";
import { OfferBook } from "./x402/offer-book.js";
import { catalogue, paymentRequired } from "./x402/payment-required.js";
import type { MppRail } from "./rails/mpp/index.js";

/** A 402 waits this long at most for its sign-in challenge. */
const SIGN_IN_CHALLENGE_TIMEOUT_MS = 500;

export interface PaymentsService {
  readonly runtime: Runtime<typeof schema>;
  readonly claims: ClaimStore;
  readonly desk: ClaimDesk;
  readonly rails: readonly X402Rail[];
  /** Reconciles claims open for longer than RECONCILE_AFTER_SECONDS (also run at start and on that period). */
  reconcile(): Promise<ReconcileResult>;
  stop(): Promise<void>;
}

export interface PaymentsOptions {
  /** Rails to offer instead of those the configuration names (tests add stand-in rails). */
  rails?: X402Rail[];
  mpp?: MppRail | null;
}

/** Offers, verification, settlement, claims and receipts, answered on payments.v1.*. */
export async function startPayments(env: PaymentsEnv, opts: PaymentsOptions = {}): Promise<PaymentsService> {
  const rt = await startRuntime({
    service: "payments",
    version: pkg.version,
    description: "Offers, verification, settlement, claims and receipts",
    env,
    database: { migrationsFolder: fileURLToPath(new URL("../drizzle", import.meta.url)), schema },
  });
  try {
    const configured = configuredRails(env);
    const rails = opts.rails ?? configured.x402;
    const mpp = opts.mpp === undefined ? configured.mpp : opts.mpp;
    const ours = new LocalFacilitator();
    for (const rail of rails) rail.register?.(ours.facilitator);
    const signInChallenge = async (resourceUrl: string) => {
      try {
        return await request(rt.bus.nc, identitySignInChallenge, { resource_url: resourceUrl }, { timeoutMs: SIGN_IN_CHALLENGE_TIMEOUT_MS });
      } catch (err) {
        rt.log.warn({ err }, "identity gave no sign-in challenge; this 402 offers payment only");
        return null;
      }
    };
    const book = new OfferBook(rails, ours, new URL(env.PUBLIC_BASE_URL), env.PAYMENT_TIMEOUT_SECONDS, signInChallenge);
    await book.initialize();
    const claims = new ClaimStore(rt.database!.db);
    const desk = new ClaimDesk(
      book,
      ours,
      claims,
      rt.log,
      mpp,
      (event) => rt.bus.nc.publish(SETTLEMENT_EVENT_SUBJECT, JSON.stringify(event)),
      countSettlements(rt.metrics),
    );
    rt.log.info({ rails: [...rails.map((r) => r.rail), ...(mpp ? ["mpp"] : [])] }, rails.length ? "payment rails offered" : "no payment rail configured: paid reads cannot be bought");

    await rt.serve([
      bind(paymentsRequirements, async (req) => {
        const route = ROUTE_BY_PATH.get(req.path);
        if (!route || route.kind !== "paid") throw new BusError("not_found", 404, `${req.path} is not a paid route`);
        return paymentRequired(book, mpp, route, req);
      }),
      bind(paymentsCatalogue, async () => ({ body: await catalogue(book, mpp) })),
      bind(paymentsClaim, (req) => desk.claim(req)),
      bind(paymentsSettle, (req) => desk.settle(req.claim_id)),
      bind(paymentsRelease, async (req) => ({ released: await desk.release(req.claim_id, req.reason) })),
      bind(paymentsStatus, () => desk.status()),
    ]);
    const reconcile = () => reconcileOpenClaims(claims, rails, new Date(Date.now() - env.RECONCILE_AFTER_SECONDS * 1000), rt.log);
    await reconcile();
    const timer = setInterval(() => void reconcile().catch((err: unknown) => rt.log.warn({ err }, "reconciliation failed")), env.RECONCILE_AFTER_SECONDS * 1000);
    timer.unref();
    rt.lifecycle.onStop("reconciliation", async () => clearInterval(timer));
    return { runtime: rt, claims, desk, rails, reconcile, stop: () => rt.stop() };
  } catch (err) {
    await rt.stop();
    throw err;
  }
}
