// The board's client: every read of SPEC.md 4 typed from proto, free reads, credentials, paid
// reads on one rail with a daily cap, every receipt kept, and watch() to buy only on change.

import { FreshnessBlock, ReceiptReply, RECEIPT_PATH, TierBlock, type BoardState } from "@board/proto";
import { credentialHeaders, expiresAt, requestFreeKey, requestToken, type Credential } from "./credentials.js";
import { errorFromResponse, fail, ok, type ClientError, type Result } from "./errors.js";
import { Http, parseBody, readBody } from "./http.js";
import { settlementOf } from "./pay/x402.js";
import type { Payer, PayOutcome, Quote } from "./pay/types.js";
import { ReceiptLog, type Receipt } from "./receipts.js";
import { readRoute, READS, type BodyOf, type Query, type ReadPath } from "./routes.js";
import { signIn, walletKey, type WalletSigner } from "./sign-in.js";
import { baseUnits, SpendCap, type BaseUnits, type Hold } from "./spend-cap.js";
import { boardEvents } from "./events.js";
import { watchChanges, watchView, type WatchEvent, type WatchOptions } from "./watch.js";
import { z } from "zod";

/** GET /api/receipt's body. */
const PaidReadReceipt = ReceiptReply.omit({ headers: true });

/** A paid read's settlement as the board states it now, and its PAYMENT-RESPONSE decoded (null when lost). */
export type PaidReadSettlement = z.infer<typeof PaidReadReceipt> & { decoded: Record<string, unknown> | null };

export interface BoardClientOptions {
  /** The gateway, e.g. http://localhost:8080. */
  baseUrl: string;
  /** Pays reads on one rail (createPayer). Without one, a paid read answers payment_required. */
  payer?: Payer;
  /** At most this many USDC base units paid per UTC day; unset: no cap. */
  dailyCap?: BaseUnits;
  /** Where receipts are kept (default: in memory only). */
  receipts?: ReceiptLog;
  /** A credential to read with where its tier allows (see credentials.ts). */
  credential?: Credential;
  fetch?: typeof globalThis.fetch;
  /** The clock of the daily cap. */
  now?: () => Date;
}

export type ReadResult<T> =
  | {
      ok: true;
      path: string;
      body: T;
      /** The freshness block (every board read carries one; the symbol directory does not). */
      freshness: FreshnessBlock | null;
      /** How it was served: free, on a credential, or paid. */
      served: "free" | "credential" | "paid";
      /** The free tier's count, on free-key and wallet reads. */
      tier: TierBlock | null;
      /** The paid read's receipt (also kept in the receipt log). */
      receipt: Receipt | null;
      etag: string | null;
      /** A settled payment sent again and delivered the same read again: which redelivery (Payment-Redelivery); null otherwise. */
      redelivery: number | null;
    }
  | { ok: false; path: string; error: ClientError };

/** Renews a credential that expires (a bearer from a license, a sign-in session). */
type Renew = () => Promise<Result<Credential>>;

const RENEW_BEFORE_MS = 30_000;

export class BoardClient {
  readonly http: Http;
  readonly receipts: ReceiptLog;
  readonly cap: SpendCap | null;
  private readonly payer: Payer | null;
  private readonly now: () => Date;
  private credential: Credential | null;
  private renew: Renew | null = null;

  constructor(opts: BoardClientOptions) {
    this.http = new Http(opts.baseUrl, opts.fetch);
    this.payer = opts.payer ?? null;
    this.receipts = opts.receipts ?? new ReceiptLog();
    this.now = opts.now ?? (() => new Date());
    this.cap = opts.dailyCap === undefined ? null : new SpendCap(baseUnits(opts.dailyCap), this.receipts, this.now);
    this.credential = opts.credential ?? null;
  }

  get rail() {
    return this.payer?.rail ?? null;
  }

  // ------------------------------------------------------------------ free reads (SPEC.md 4.2)

  free() {
    return this.read("/api/board/free");
  }
  /** The full board's schema, previous trading day, top 3 names per book. */
  preview() {
    return this.read("/api/board/agent", { preview: "1" });
  }
  symbols() {
    return this.read("/api/board/symbols");
  }
  status() {
    return this.read("/api/board/status");
  }
  /** Content hashes per view: poll this and buy only on change (or use watch()). */
  state() {
    return this.read("/api/board/state");
  }
  /** One complete committed sample day of scores. */
  sample() {
    return this.read("/api/board/asof", { sample: "1" });
  }
  signalAudit() {
    return this.read("/api/board/signal-audit");
  }
  proof() {
    return this.read("/api/board/proof");
  }
  perf() {
    return this.read("/api/perf");
  }

  // ------------------------------------------------------------------ credentials (SPEC.md 5)

  /** Reads with `credential` from now on, where its tier allows (null: none). */
  useCredential(credential: Credential | null, renew: Renew | null = null): void {
    this.credential = credential;
    this.renew = renew;
  }

  /** POST /api/key, then reads with the key (25 free reads a day on the free-tier routes). */
  async requestFreeKey(email: string) {
    const reply = await requestFreeKey(this.http, email);
    if (reply.ok) this.useCredential({ kind: "board_key", key: reply.value.key });
    return reply;
  }

  /** Reads with a license key (every paid route live, no cap; a live-feed license adds /api/live/*). */
  useLicense(key: string): void {
    this.useCredential({ kind: "license", key });
  }

  /** Trades a license for a bearer token (1 hour) and reads with it, minting a new one as it expires. */
  async useOAuth(clientId: string, licenseKey: string): Promise<Result<Credential>> {
    const mint: Renew = async () => {
      const token = await requestToken(this.http, clientId, licenseKey);
      if (!token.ok) return token;
      return ok({ kind: "bearer", token: token.value.access_token, expires_at: new Date(this.now().getTime() + token.value.expires_in * 1000) });
    };
    const first = await mint();
    if (first.ok) this.useCredential(first.value, mint);
    return first;
  }

  /** Signs in with a wallet (free tier, per address); the session is signed again as it ends. */
  async signIn(wallet: WalletSigner): Promise<Result<Credential>> {
    const sign: Renew = async () => {
      const session = await signIn(this.http, wallet);
      return session.ok ? ok({ kind: "sign_in", session: session.value }) : session;
    };
    const first = await sign();
    if (first.ok) this.useCredential(first.value, sign);
    return first;
  }

  /** Trades the current sign-in session for a wallet key (X-Board-Key) and reads with it. */
  async walletKey() {
    if (this.credential?.kind !== "sign_in") return fail("sign_in_failed", "sign in first: there is no wallet session to verify");
    const reply = await walletKey(this.http, this.credential.session);
    if (reply.ok) this.useCredential({ kind: "board_key", key: reply.value.key });
    return reply;
  }

  // ------------------------------------------------------------------ receipts

  /**
   * Where a kept receipt's settlement stands now (GET /api/receipt with the payment that bought
   * it, at any time): final, pending its block, or lost, and the PAYMENT-RESPONSE the board
   * gives now, decoded (its signed receipt final once the block says so). Nothing is read or
   * paid again. MPP reads are settled before they are answered: their receipt is final already.
   */
  async settlement(receipt: Receipt): Promise<Result<PaidReadSettlement>> {
    if (receipt.header !== "PAYMENT-RESPONSE") return fail("invalid_request", "an MPP read is settled before it is answered: its Payment-Receipt is final already");
    const sent = await this.http.send(this.http.url(RECEIPT_PATH), { headers: { [receipt.payment.header]: receipt.payment.value } });
    if (!sent.ok) return sent;
    const body = await parseBody(sent.value, PaidReadReceipt);
    if (!body.ok) return body;
    return ok({ ...body.value, decoded: settlementOf(sent.value)?.decoded ?? null });
  }

  // ------------------------------------------------------------------ reads

  /**
   * Any read of the board, its body checked against proto's schema. A free read is read; a paid
   * one is read on the credential when its tier allows, else paid on the payer's rail (within
   * the daily cap), its receipt kept. Never throws for a refusal: errors are data.
   */
  async read<P extends ReadPath>(path: P, query: Query = {}): Promise<ReadResult<BodyOf<P>>> {
    const target = readRoute(path, query);
    if (!target) return { ok: false, path, error: { code: "unknown_route", message: `${path} is not a read of the board (known: ${Object.keys(READS).join(", ")})` } };
    const url = this.http.url(path, query);
    const shown = url.slice(this.http.baseUrl.length);
    const done = (r: Result<Omit<Extract<ReadResult<BodyOf<P>>, { ok: true }>, "ok" | "path">>): ReadResult<BodyOf<P>> =>
      r.ok ? { ok: true, path: shown, ...r.value } : { ok: false, path: shown, error: r.error };

    if (target.free) {
      const sent = await this.http.send(url);
      return done(sent.ok ? await this.served<P>(sent.value, "free", null, target.schema) : sent);
    }
    const headers = await this.credentialFor(target.route);
    if (headers) {
      const sent = await this.http.send(url, { headers });
      if (!sent.ok) return done(sent);
      // Refused on the credential (cap reached, route outside the tier): pay instead when we can.
      if (sent.value.status !== 402 || !this.payer) return done(await this.served<P>(sent.value, "credential", null, target.schema));
      await sent.value.body?.cancel();
    }
    if (!this.payer) {
      const sent = await this.http.send(url);
      if (!sent.ok) return done(sent);
      if (sent.value.status !== 402) return done(await this.served<P>(sent.value, "free", null, target.schema));
      const error = await errorFromResponse(sent.value);
      const price = target.route.price?.toString();
      return done({
        ok: false,
        error: { ...error, code: "payment_required", message: `${path} is paid (${price ?? "?"} base units a read) and no payer is configured`, ...(price && { price }) },
      });
    }
    return done(await this.pay<P>(url, shown, target.schema));
  }

  /**
   * The payment of a receipt sent again, as a retrying client would: within the redelivery
   * window the board delivers the same read again (`redelivery` set, nothing charged), past it
   * it refuses. Served without `redelivery` would mean a second purchase.
   */
  async replay(receipt: Receipt): Promise<ReadResult<unknown>> {
    const sent = await this.http.send(receipt.url, { headers: { [receipt.payment.header]: receipt.payment.value } });
    if (!sent.ok) return { ok: false, path: receipt.path, error: sent.error };
    if (!sent.value.ok) return { ok: false, path: receipt.path, error: await errorFromResponse(sent.value) };
    const u = new URL(receipt.url);
    const schema = readRoute(u.pathname, Object.fromEntries(u.searchParams))?.schema ?? z.unknown();
    const served = await this.served(sent.value, "paid", null, schema);
    return served.ok ? { ok: true, path: receipt.path, ...served.value } : { ok: false, path: receipt.path, error: served.error };
  }

  /**
   * Watches a read: follows the free event stream /api/board/events (or, with via: "poll", polls
   * /api/board/state) and reads `path` whenever its view's hash changed (see watch.ts).
   */
  watch<P extends ReadPath>(path: P, opts: WatchOptions & { query?: Query } = {}): AsyncGenerator<WatchEvent<ReadResult<BodyOf<P>>>> {
    const target = readRoute(path, opts.query ?? {});
    if (!target) throw new RangeError(`${path} is not a read of the board`);
    return watchView(target.view, { state: () => this.stateResult(), read: () => this.read(path, opts.query ?? {}), events: this.eventStream }, opts);
  }

  /**
   * Watches what changed: from the board when the watch starts, buys /api/board/changes?since=
   * the board last read up to each time a new board is published (0.005 USDC, where re-buying a
   * whole view costs more). A `since` past the boards kept (board_too_old) is reported and the
   * watch goes on from the current board.
   */
  watchChanges(opts: WatchOptions = {}): AsyncGenerator<WatchEvent<ReadResult<BodyOf<"/api/board/changes">>>> {
    return watchChanges(
      {
        state: () => this.stateResult(),
        read: (since) => this.read("/api/board/changes", { since: since ?? "" }),
        settled: (r) => !r.ok && (r.error.code === "board_too_old" || r.error.code === "board_unknown"),
        events: this.eventStream,
      },
      opts,
    );
  }

  private async stateResult(): Promise<Result<BoardState>> {
    const r = await this.state();
    return r.ok ? ok(r.body) : { ok: false, error: r.error };
  }

  private readonly eventStream = (lastEventId: number | undefined, signal: AbortSignal | undefined) =>
    boardEvents(this.http, { ...(lastEventId !== undefined ? { lastEventId } : {}), ...(signal ? { signal } : {}) });

  /** USDC base units paid today (UTC), in-flight payments included. */
  spentToday(): bigint {
    return this.cap?.spentToday() ?? this.receipts.spentSince(utcMidnight(this.now()));
  }

  // ------------------------------------------------------------------ internals

  private async credentialFor(route: Parameters<typeof credentialHeaders>[1]): Promise<Record<string, string> | null> {
    const credential = this.credential;
    if (!credential) return null;
    const expiry = expiresAt(credential);
    if (expiry && this.renew && expiry.getTime() - this.now().getTime() < RENEW_BEFORE_MS) {
      const renewed = await this.renew();
      if (renewed.ok) this.credential = renewed.value;
    }
    return credentialHeaders(this.credential, route);
  }

  private async pay<P extends ReadPath>(url: string, shown: string, schema: z.ZodType) {
    const payer = this.payer!;
    const holds = new Map<Quote, Hold>();
    const approve = (quote: Quote): ClientError | null => {
      if (!this.cap) return null;
      const hold = this.cap.hold(quote.amount);
      if ("code" in hold) return hold;
      holds.set(quote, hold);
      return null;
    };
    let outcome: PayOutcome;
    try {
      outcome = await payer.get(url, {}, approve);
    } catch (err) {
      // A payer's own bug: whatever it held stays counted, since we cannot know what it sent.
      for (const hold of holds.values()) hold.keep();
      throw err;
    }
    if (outcome.kind === "not_paid") {
      const sentAndLost = outcome.error.code === "network_error" && outcome.quote !== null;
      for (const hold of holds.values()) {
        if (sentAndLost) hold.keep();
        else hold.release();
      }
      return { ok: false as const, error: outcome.error };
    }
    const { response, quote, payment, settlement } = outcome;
    let receipt: Receipt | null = null;
    if (response.ok && quote && payment && settlement) {
      receipt = {
        rail: payer.rail,
        path: shown,
        url,
        price: quote.amount.toString(),
        network: settlement.network,
        asset: quote.asset,
        pay_to: quote.pay_to,
        transaction: settlement.transaction,
        payer: settlement.payer ?? payer.address,
        at: this.now().toISOString(),
        header: settlement.header,
        decoded: settlement.decoded,
        payment,
      };
      this.receipts.add(receipt);
    }
    // Paid (now a receipt) or refused by the board (nothing charged): the holds go.
    for (const hold of holds.values()) hold.release();
    return this.served<P>(response, response.ok && !receipt ? "free" : "paid", receipt, schema);
  }

  private async served<P extends ReadPath>(res: Response, served: "free" | "credential" | "paid", receipt: Receipt | null, schema: z.ZodType) {
    const body = await readBody(res, schema);
    if (!body.ok) return body;
    const freshness = FreshnessBlock.safeParse(body.value.raw.freshness);
    const tier = TierBlock.safeParse(body.value.raw.tier);
    return ok({
      body: body.value.body as BodyOf<P>,
      freshness: freshness.success ? freshness.data : null,
      served,
      tier: tier.success ? tier.data : null,
      receipt,
      etag: res.headers.get("etag"),
      redelivery: redeliveryOf(res),
    });
  }
}

/** The Payment-Redelivery count of a paid answer, or null on a first delivery. */
function redeliveryOf(res: Response): number | null {
  const n = Number(res.headers.get("payment-redelivery") ?? Number.NaN);
  return Number.isInteger(n) && n >= 1 ? n : null;
}

function utcMidnight(d: Date): Date {
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));
}
