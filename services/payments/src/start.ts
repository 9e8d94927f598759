import { fileURLToPath } from "node:url";
import {
  ARREARS_LIST_LOSSES,
  ARREARS_LIST_PAYERS,
  identitySignInChallenge,
  PAYMENT_RAILS_EVENT_SUBJECT,
  paymentsArrearsClear,
  paymentsArrearsList,
  paymentsCatalogue,
  paymentsClaim,
  paymentsDidDocument,
  paymentsReceipt,
  paymentsRelease,
  paymentsRequirements,
  paymentsSettle,
  paymentsStatus,
  RAIL_NAME,
  ROUTE_BY_PATH,
  SETTLEMENT_EVENT_SUBJECT,
  type PaymentRails,
} from "@board/proto";
import { bind, BusError, gaugeKeyRotation, request, startRuntime, type Runtime } from "@board/service-kit";
import pkg from "../package.json" with { type: "json" };
import { ClaimDesk } from "./claims/claim-desk.js";
import { EarlyAnswers } from "./claims/early-answers.js";
import { ClaimLedger } from "./claims/ledger.js";
import { MppClaims } from "./claims/mpp-claims.js";
import { reconcileOpenClaims, reconcilePendingSettlements, type ReconcileResult } from "./claims/reconcile.js";
import { ReceiptLookup } from "./claims/receipt-lookup.js";
import { Redeliveries } from "./claims/redelivery.js";
import { countSettlements } from "./claims/settlement-outcomes.js";
import { ClaimStore } from "./claims/store.js";
import { gaugeUnsettledClaims } from "./claims/unsettled-metrics.js";
import { X402Claims } from "./claims/x402-claims.js";
import * as schema from "./db/schema.js";
import type { PaymentsEnv } from "./env.js";
import { configuredRails } from "./rails/configured.js";
import { failureFields } from "./rails/backend-failure.js";
import type { X402Rail } from "./rails/rail.js";
import { gaugeRails } from "./rails/rail-metrics.js";
import { RailWatch, type WatchedRail } from "./rails/rail-watch.js";
import { settlementInstruments } from "./settlement/batch-metrics.js";
import { exposureInstruments } from "./settlement/exposure-metrics.js";
import { finalityInstrument } from "./settlement/finality-metrics.js";
import { PayerExposure, type ExposureStats } from "./settlement/payer-exposure.js";
import { LocalFacilitator } from "./x402/local-facilitator.js";
import { OfferBook } from "./x402/offer-book.js";
import { catalogue, paymentRequired } from "./x402/payment-required.js";
import type { MppRail } from "./rails/mpp/index.js";
import { ClaimReceipts } from "./receipts/claim-receipts.js";
import { OfferReceipts } from "./receipts/offer-receipts.js";
import { ReceiptKeys } from "./receipts/receipt-keys.js";
import { receiptKeyEncryptionKey } from "./receipts/secrets.js";

/** A 402 waits this long at most for its sign-in challenge. */
const SIGN_IN_CHALLENGE_TIMEOUT_MS = 500;
/** What /readyz means here, in its body: a rail's backend is not a dependency of readiness. */
const READINESS_NOTE =
  "ready when payments.v1.* answer; a rail that is down (its reason in `reasons`) is not offered, is checked again in the background, and does not make payments unready";
/** How often the Base facilitator's balance is read while its rails are offered. */
const FACILITATOR_GAS_WATCH_MS = 30_000;

export interface PaymentsService {
  readonly runtime: Runtime<typeof schema>;
  readonly claims: ClaimStore;
  readonly desk: ClaimDesk;
  /** Every configured x402 rail (offered or not: see `watch`). */
  readonly rails: readonly X402Rail[];
  /** Which rails are offered now. */
  readonly watch: RailWatch;
  /** What payers have been served and not yet paid on chain; an operator clears a payer's debts here. */
  readonly exposure: PayerExposure;
  /** Reconciles claims open for longer than RECONCILE_AFTER_SECONDS (also run at start and on that period). */
  reconcile(): Promise<ReconcileResult>;
  stop(): Promise<void>;
}

export interface PaymentsOptions {
  /** Rails to offer instead of those the configuration names (tests add stand-in rails). */
  rails?: X402Rail[];
  mpp?: MppRail | null;
  /** How often the Base facilitator's balance is read while offered (tests shorten it). */
  facilitatorGasWatchMs?: number;
}

/** Offers, verification, settlement, claims and receipts, answered on payments.v1.*. */
export async function startPayments(env: PaymentsEnv, opts: PaymentsOptions = {}): Promise<PaymentsService> {
  // Set once the rails are watched and the endpoints served; /readyz may be asked before.
  let watch: RailWatch | null = null;
  let serving = false;
  /** The rails with the exposure ledger's totals, once both exist. */
  let railsReportNow: (() => PaymentRails) | null = null;
  const rt = await startRuntime({
    service: "payments",
    version: pkg.version,
    description: "Offers, verification, settlement, claims and receipts",
    env,
    database: { migrationsFolder: fileURLToPath(new URL("../drizzle", import.meta.url)), schema },
    checks: {
      endpoints: () => {
        if (!serving) throw new Error("not serving yet");
      },
    },
    describeReadiness: () => ({ ...(watch?.report() ?? { mode: env.PAYMENTS_MODE }), note: READINESS_NOTE }),
  });
  try {
    const configured = await configuredRails(env, rt.log, settlementInstruments(rt.metrics));
    const rails = opts.rails ?? configured.x402;
    const mpp = opts.mpp === undefined ? configured.mpp : opts.mpp;
    const mppProbe = opts.mpp === undefined ? configured.mppProbe : null;
    const railWatch = new RailWatch({
      mode: env.PAYMENTS_MODE,
      schedule: { initialMs: env.RAIL_RETRY_INITIAL_MS, maxMs: env.RAIL_RETRY_MAX_MS, jitter: env.RAIL_RETRY_JITTER },
      timeoutMs: env.RAIL_PROBE_TIMEOUT_MS,
      log: rt.log,
      onChange: (report: PaymentRails) => rt.bus.nc.publish(PAYMENT_RAILS_EVENT_SUBJECT, JSON.stringify({ ...report, ...(railsReportNow && railsReportNow()) })),
    });
    watch = railWatch;
    gaugeRails(rt.metrics, () => railWatch.report());
    rt.lifecycle.onStop("rail watch", () => railWatch.stop());
    // Registered before the endpoints stop: a batch that is open is sent, and one in flight answered.
    const batcher = configured.batcher;
    if (batcher) rt.lifecycle.onStop("settlement batches", () => batcher.drain());
    // Nothing is sold without a signed receipt: a rail (configured or given) needs the receipt keys.
    if ((rails.length > 0 || mpp) && env.RECEIPT_SECRET === undefined) throw new Error("RECEIPT_SECRET is required when a payment rail is offered");
    const receiptKeys = env.RECEIPT_SECRET
      ? new ReceiptKeys({
          db: rt.database!.db,
          keyEncryptionKey: receiptKeyEncryptionKey(env.RECEIPT_SECRET),
          publicBaseUrl: new URL(env.PUBLIC_BASE_URL),
          now: () => new Date(),
          rotateAfterSeconds: env.RECEIPT_KEY_ROTATE_AFTER_DAYS * 86_400,
          publishLeadSeconds: env.RECEIPT_KEY_PUBLISH_LEAD_SECONDS,
          log: rt.log,
        })
      : null;
    if (receiptKeys) {
      await receiptKeys.start();
      rt.lifecycle.onStop("receipt keys", async () => receiptKeys.stop());
      gaugeKeyRotation(rt.metrics, "receipt", () => receiptKeys.rotation());
    }
    const offerReceipts = receiptKeys ? new OfferReceipts(receiptKeys) : null;
    const ours = new LocalFacilitator();
    for (const rail of rails) rail.register?.(ours.facilitator);
    const signInChallenge = async (resourceUrl: string) => {
      try {
        return await request(rt.bus.nc, identitySignInChallenge, { resource_url: resourceUrl }, { timeoutMs: SIGN_IN_CHALLENGE_TIMEOUT_MS });
      } catch (err) {
        rt.log.warn(failureFields(err), "identity gave no sign-in challenge; this 402 offers payment only");
        return null;
      }
    };
    const book = new OfferBook(
      rails,
      ours,
      new URL(env.PUBLIC_BASE_URL),
      env.PAYMENT_TIMEOUT_SECONDS,
      signInChallenge,
      (rail) => railWatch.isLive(RAIL_NAME[rail.rail]),
      offerReceipts,
    );
    await book.initialize();
    const watched: WatchedRail[] = rails.map((rail) => ({
      name: RAIL_NAME[rail.rail],
      bringUp: async () => {
        const notes = await rail.probe?.();
        await book.prepare(rail);
        return notes;
      },
    }));
    if (mpp) watched.push({ name: "mpp", bringUp: () => mppProbe?.() ?? Promise.resolve() });
    // Every rail is asked once before serving, so the first 402 offers each one that answers.
    await railWatch.start(watched);
    // The Base facilitator pays for x402's and MPP's settlements: below its floor both say so; unable to pay for one, both go down until funded.
    const gas = opts.rails === undefined ? configured.facilitatorGas : null;
    if (gas) {
      const stopGas = gas.watch(
        opts.facilitatorGasWatchMs ?? FACILITATOR_GAS_WATCH_MS,
        (level, failure) => {
          for (const name of ["base", "mpp"] as const) {
            if (failure) railWatch.takeDown(name, failure);
            else railWatch.warn(name, "facilitator_balance_low", level === "low");
          }
        },
        () => railWatch.isLive("base") || railWatch.isLive("mpp"),
      );
      rt.lifecycle.onStop("facilitator gas", async () => stopGas());
    }
    const liveMpp = () => (mpp && railWatch.isLive("mpp") ? mpp : null);
    const claims = new ClaimStore(rt.database!.db);
    gaugeUnsettledClaims(rt.metrics, rt.database!.db, rt.log);
    const claimReceipts = offerReceipts ? new ClaimReceipts(offerReceipts, (path) => book.resourceUrl(path, ""), rt.log) : null;
    // Reads answered before their block: only where payments settle in batches (Base).
    const exposure = new PayerExposure(rt.database!.db, BigInt(env.UNSETTLED_PER_PAYER_CAP));
    const instruments = exposureInstruments(rt.metrics);
    let exposureNow: ExposureStats | null = null;
    const railsReport = (): PaymentRails => ({
      ...railWatch.report(),
      ...(exposureNow && { exposure: { unsettled: exposureNow.unsettled.toString(), owed: exposureNow.owed.toString(), payers_owing: exposureNow.payersOwing, losses: exposureNow.losses } }),
    });
    /** Reads the ledger's totals again; when losses or debts changed, says so on the rails event. */
    const refreshExposure = async () => {
      const before = exposureNow;
      exposureNow = await exposure.stats();
      instruments.onStats(exposureNow);
      if (before && (before.losses !== exposureNow.losses || before.owed !== exposureNow.owed) && serving)
        rt.bus.nc.publish(PAYMENT_RAILS_EVENT_SUBJECT, JSON.stringify(railsReport()));
    };
    const early = configured.batcher
      ? new EarlyAnswers(claims, exposure, { maxPrice: BigInt(env.ANSWER_BEFORE_BLOCK_MAX_PRICE) }, rt.log, (row, settled) => claimReceipts?.sign(row, settled) ?? Promise.resolve(null), {
          onEarly: instruments.onEarly,
          onOutcome: finalityInstrument(rt.metrics),
          onLoss(loss) {
            instruments.onLoss(loss);
            void refreshExposure().catch(() => undefined);
          },
        })
      : null;
    const redeliveries = new Redeliveries(
      claims,
      { windowSeconds: env.REDELIVERY_WINDOW_SECONDS, max: env.REDELIVERY_MAX },
      mpp ? (tx) => mpp.receipt({ externalId: undefined }, tx) : null,
      claimReceipts,
    );
    const ledger = new ClaimLedger(
      claims,
      rt.log,
      (event) => rt.bus.nc.publish(SETTLEMENT_EVENT_SUBJECT, JSON.stringify(event)),
      countSettlements(rt.metrics),
      redeliveries,
    );
    const receiptLookup = new ReceiptLookup(claims, book.rails, redeliveries);
    const desk = new ClaimDesk(
      ledger,
      new X402Claims(book, ours, ledger, rt.log, claimReceipts, early),
      new MppClaims(mpp, () => railWatch.isLive("mpp"), ledger, rt.log, claimReceipts, early),
    );
    await refreshExposure();
    railsReportNow = railsReport;
    if (watched.length) rt.log.info(railWatch.report(), "payment rails at start");
    else rt.log.warn({ mode: env.PAYMENTS_MODE }, "no payment rail configured: paid reads cannot be bought");

    await rt.serve([
      bind(paymentsRequirements, async (req) => {
        const route = ROUTE_BY_PATH.get(req.path);
        if (!route || route.kind !== "paid") throw new BusError("not_found", 404, `${req.path} is not a paid route`);
        return paymentRequired(book, liveMpp(), route, req);
      }),
      bind(paymentsCatalogue, async () => ({ body: await catalogue(book, liveMpp()) })),
      bind(paymentsClaim, (req) => desk.claim(req)),
      bind(paymentsSettle, (req) => desk.settle(req.claim_id, req.delivery)),
      bind(paymentsRelease, async (req) => ({ released: await desk.release(req.claim_id, req.reason) })),
      bind(paymentsStatus, async () => {
        await refreshExposure();
        return { ...(await desk.status()), ...railsReport() };
      }),
      bind(paymentsReceipt, (req) => receiptLookup.find(req)),
      bind(paymentsDidDocument, async () => {
        if (!receiptKeys) throw new BusError("not_found", 404, "no receipt keys: nothing is sold here (no payment rail is configured)");
        return receiptKeys.didDocument();
      }),
      // The operator's (npm run arrears; BUS_GRANTS lets no one else ask).
      bind(paymentsArrearsList, async () => {
        const { payers, total } = await exposure.arrears({ payers: ARREARS_LIST_PAYERS, losses: ARREARS_LIST_LOSSES });
        return {
          payers: payers.map((p) => ({
            payer: p.payer,
            network: p.network,
            owed: p.owed.toString(),
            loss_count: p.lossCount,
            losses: p.losses.map((l) => ({ claim_id: l.claimId, amount: l.amount.toString(), reason: l.reason, detected_at: l.detectedAt.toISOString() })),
          })),
          payers_owing: total,
        };
      }),
      bind(paymentsArrearsClear, async (req) => {
        const cleared = await exposure.clear(req.payer, req.why);
        // The rails event and /metrics say the debt is gone (as after a loss, a failure here changes nothing cleared).
        await refreshExposure().catch(() => undefined);
        if (cleared === 0) throw new BusError("not_found", 404, "that payer has no uncleared loss: nothing was cleared");
        rt.log.info({ payer: req.payer.toLowerCase(), cleared, why: req.why }, "the operator cleared a payer's losses: its payments are accepted again");
        return { payer: req.payer.toLowerCase(), cleared };
      }),
    ]);
    serving = true;
    // For a board that was listening before this replica came: its rails as they are now.
    rt.bus.nc.publish(PAYMENT_RAILS_EVENT_SUBJECT, JSON.stringify(railsReport()));
    // Only rails whose chain answers are asked about open claims: the others' claims wait for a later pass.
    // One pass at a time (the timer's and one asked for): two would send the same authorization twice.
    let reconciling: Promise<ReconcileResult> | null = null;
    const reconcile = () => (reconciling ??= reconcilePass().finally(() => (reconciling = null)));
    const reconcilePass = async () => {
      const live = rails.filter((r) => railWatch.isLive(RAIL_NAME[r.rail]));
      const olderThan = new Date(Date.now() - env.RECONCILE_AFTER_SECONDS * 1000);
      const result = await reconcileOpenClaims(claims, live, olderThan, rt.log);
      if (early) await reconcilePendingSettlements(claims, live, early, olderThan, rt.log);
      await refreshExposure();
      return result;
    };
    await reconcile();
    const timer = setInterval(() => void reconcile().catch((err: unknown) => rt.log.warn(failureFields(err), "reconciliation failed")), env.RECONCILE_AFTER_SECONDS * 1000);
    timer.unref();
    rt.lifecycle.onStop("reconciliation", async () => clearInterval(timer));
    return { runtime: rt, claims, desk, rails, watch: railWatch, exposure, reconcile, stop: () => rt.stop() };
  } catch (err) {
    await rt.stop();
    throw err;
  }
}
