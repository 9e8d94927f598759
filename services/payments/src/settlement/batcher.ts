import type { Address, Hex } from "viem";
import type { Eip3009Authorization } from "../rails/eip3009.js";
import type { SettlementOutcome } from "../rails/mpp/server-method.js";
import { refusalOfRevert } from "./reverts.js";
import { revertText, transferCall, transfersIn, type Call3, type ReceiptLog } from "./aggregate3.js";

/** The chain, as the batcher needs it (settlement/base-batch-chain.ts on Base). */
export interface BatchChain {
  /** eth_call of aggregate3 from our account against the latest state: each call's success and return data. */
  simulate(calls: readonly Call3[]): Promise<readonly { success: boolean; returnData: Hex }[]>;
  /** Signs and broadcasts aggregate3(calls); its hash once the node took it. */
  send(calls: readonly Call3[]): Promise<Hex>;
  /** The receipt once mined, null while not. Throws when the node cannot be asked. */
  receipt(hash: Hex): Promise<{ status: "success" | "reverted"; gasUsed: bigint; logs: readonly ReceiptLog[]; block?: bigint } | null>;
  /** The latest block's number (never cached). Throws when the node cannot be asked. */
  blockNumber(): Promise<bigint>;
  /**
   * After a batch whose fate is unknown: the account's next nonce is asked of the node again
   * (a transaction the node dropped would otherwise leave a gap no later one can pass).
   */
  resync(): void;
}

export interface BatchSettings {
  /** A batch closes when it holds this many authorizations... */
  maxSize: number;
  /**
   * ...or this long after its first one arrived, or, sooner, when it holds as many as the
   * demand a window has been seen to hold (SettlementBatcher's expected size).
   */
  windowMs: number;
  /** How long a sent batch's receipt is awaited before its outcome is called unknown. */
  receiptTimeoutMs: number;
  /** How often the receipt is asked for while it is not there. */
  receiptPollMs: number;
  /**
   * Blocks (the receipt's own included) a transfer answered before its block must be under
   * before it is final: the receipt is read again at that depth, and one a reorganized block
   * took away leaves the settlement unknown, for reconciliation (sent again while its
   * authorization holds, a loss once it lapsed). 1: final at the receipt. A read that waited
   * for its block is answered at the receipt, as before.
   */
  finalConfirmations?: number;
}

/** What one closed batch came to, for the metrics. */
export interface BatchReport {
  /** Authorizations the batch closed with. */
  size: number;
  /** Of them, sent in the transaction (the others were refused by its simulation). */
  sent: number;
  /** Of them, whose own transfer the chain executed. */
  transferred: number;
  outcome: "mined" | "reverted" | "refused" | "unknown" | "not_sent";
  gasUsed: bigint;
  transaction: Hex | null;
}

/**
 * Nothing was sent: the chain could not be asked to simulate the batch. The payment did not
 * move and can be presented again.
 */
export class SettlementNotSent extends Error {
  override readonly name = "SettlementNotSent";
  readonly reason = "settlement_not_sent";
}

/** Sent (or maybe sent), outcome unknown: the claim stays open for reconciliation. */
export class SettlementUnknown extends Error {
  override readonly name = "SettlementUnknown";
  readonly reason = "settlement_pending";
  constructor(
    detail: string,
    readonly transaction: Hex | null,
  ) {
    super(detail);
  }
}

/**
 * A payment answered once its transfer was simulated against the latest state and broadcast,
 * before its block: `final` says how it ended (settled, refused, or thrown as unknown).
 */
export interface Broadcast {
  ok: true;
  pending: true;
  transaction: Hex;
  final: Promise<SettlementOutcome>;
}

/** What settling one payment comes to: its definite outcome, or its broadcast when it was let answer before its block. */
export type BatchOutcome = SettlementOutcome | Broadcast;

interface Waiting {
  authorization: Eip3009Authorization;
  /** Whether the payment may go on chain: its claim recorded what was served and is still open. */
  ready: Promise<boolean>;
  /**
   * Asked only once its batch was broadcast, and then at once when the last batch was not mined
   * at its first receipt ask, else when this batch's first ask found none: whether the payment
   * may be answered now, before its block (the caller reserves what that risks; a chain that
   * mines at once is not asked, past its first batch after a slow one).
   */
  early: () => Promise<boolean>;
  /** Answers the payment before its block (its final outcome still comes by resolve/reject). */
  broadcast(transaction: Hex): void;
  /** Whether it was answered before its block (its final outcome then waits for finalConfirmations). */
  answeredEarly(): boolean;
  resolve(outcome: SettlementOutcome): void;
  reject(err: Error): void;
}

const READY = Promise.resolve(true);
const NOT_EARLY = () => Promise.resolve(false);

/** A payment left out of its batch because it was not ready (its claim is not open): nothing was sent, as the claim desk says of such a claim. */
const WITHDRAWN: SettlementOutcome = { ok: false, reason: "payment_already_used", detail: "the claim is not open; nothing was sent" };

const awaitedKey = (a: Pick<Eip3009Authorization, "from" | "nonce">) => `${a.from.toLowerCase()}:${a.nonce.toLowerCase()}`;

/** Failed receipt lookups in a row after which the node is taken as not answering. */
const RECEIPT_LOOKUP_ATTEMPTS = 3;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The expected size of the next batch: the authorizations that arrived in the last window,
 * never less than half the previous expectation (one straggler alone in a window does not
 * make the next batches single), within 1..maxSize.
 */
export function nextExpectedSize(previous: number, arrivedInWindow: number, maxSize: number): number {
  return Math.min(maxSize, Math.max(1, arrivedInWindow, Math.ceil(previous / 2)));
}

/**
 * Settles EIP-3009 authorizations together: one Multicall3 aggregate3 transaction per batch,
 * one transferWithAuthorization per payment with failure allowed. Before sending, one eth_call
 * of the same batch asks the chain about every payment at once (balance, nonce unused,
 * validity, signature): those it refuses are answered at once and left out. After mining, each
 * payment is decided by its own call's logs. Outcomes are as the MPP method's: definite
 * (settled or refused) or thrown (SettlementNotSent, SettlementUnknown). On a chain without
 * Multicall3 it is routed (`route`) to batches of one, each its own transferWithAuthorization.
 *
 * A batch closes at maxSize, at the end of its window, or as soon as it holds the expected
 * size, no payment verified here in the last window is still on its way to settlement
 * (`expect`) and no batch of ours is in flight: buyers who wait for their reads send the next
 * ones together, and once all of them are in, the rest of the window is only waiting (19 of
 * 25 ms per batch at 16 lanes). While a batch is in flight, the next gathers for its whole
 * window: under steady load, smaller batches would only cost more chain work per payment.
 * A payment verified by another replica is not seen here, and one settled by another is
 * awaited here until its window passes: with replicas, a batch may wait its window, as without
 * the expectation.
 */
export class SettlementBatcher {
  private queue: Waiting[] = [];
  private timer: NodeJS.Timeout | null = null;
  private readonly inFlight = new Set<Promise<void>>();
  /**
   * Batches the chain is working on: simulated or being broadcast. One the node took and that
   * only waits for its block no longer counts: on a chain that mines every 2 s the next batch
   * would otherwise always wait its whole window, for nothing the node is doing.
   */
  private onChain = 0;
  /** Arrival times (performance.now()) of the last windowMs, oldest first, from `arrivalsFrom`. */
  private arrivals: number[] = [];
  private arrivalsFrom = 0;
  /** Until the first batch closes, nothing is known of the demand: maxSize, as a plain window batcher. */
  private expected: number;
  /** Payments verified here and not yet handed to settle: authorization key -> when verified. */
  private readonly awaited = new Map<string, number>();

  /**
   * Whether the last first ask for a batch's receipt, right after its broadcast, found it not
   * mined: then the next batch's payments let answer early are answered at its broadcast.
   */
  private unminedAtFirstAsk = false;

  private readonly blocks: BlockWatch;
  /** Payments per transaction at most: settings.maxSize, or what `route` set. */
  private maxSize: number;

  constructor(
    private chain: BatchChain,
    private readonly token: Address,
    private readonly settings: BatchSettings,
    private readonly onBatch: (report: BatchReport) => void = () => undefined,
  ) {
    this.maxSize = settings.maxSize;
    this.expected = settings.maxSize;
    this.blocks = new BlockWatch({ blockNumber: () => this.chain.blockNumber() }, settings.receiptPollMs);
  }

  /**
   * Settles through `chain` from now on, at most `maxSize` payments per transaction (1 on a
   * chain without Multicall3: base-single-chain.ts). A batch already closed ends on the chain
   * it started on.
   */
  route(chain: BatchChain, maxSize: number): void {
    this.chain = chain;
    this.maxSize = Math.max(1, Math.min(maxSize, this.settings.maxSize));
    this.expected = Math.min(this.expected, this.maxSize);
    if (this.queue.length >= this.maxSize) this.close();
  }

  /**
   * A payment was verified and will be settled here soon (once its read is served): the open
   * batch waits for it, within its window.
   */
  expect(authorization: Pick<Eip3009Authorization, "from" | "nonce">): void {
    // Verified payments that never settle here (claimed elsewhere, settled by another replica)
    // would otherwise stay for good while batches are always in flight.
    this.nothingAwaited();
    this.awaited.set(awaitedKey(authorization), performance.now());
  }

  /**
   * Settles in the next batch. `ready` says whether the payment may go on chain at all (its
   * claim recorded the read and is still open); it is awaited beside the batch's simulation,
   * before anything is sent, and a payment not ready is left out (`payment_already_used`, as a
   * claim not open is answered).
   */
  settle(authorization: Eip3009Authorization, ready: Promise<boolean> = READY): Promise<SettlementOutcome> {
    return this.settleEarly(authorization, ready, NOT_EARLY) as Promise<SettlementOutcome>;
  }

  /**
   * As settle, and the payment may be answered as soon as its batch is broadcast (after the
   * simulation said its transfer goes through against the latest state) on a chain that did not
   * mine the last batch at once (or once its first receipt ask found none), if `early` then
   * says so; its final outcome follows in `final`.
   */
  settleEarly(authorization: Eip3009Authorization, ready: Promise<boolean>, early: () => Promise<boolean>): Promise<BatchOutcome> {
    return new Promise((answer, fail) => {
      let final!: { resolve(o: SettlementOutcome): void; reject(e: Error): void };
      const finalOutcome = new Promise<SettlementOutcome>((resolve, reject) => (final = { resolve, reject }));
      // Awaited by whoever was answered early; never left unhandled otherwise.
      finalOutcome.catch(() => undefined);
      let answered = false;
      let settled = false;
      const waiting: Waiting = {
        authorization,
        ready: ready.catch(() => false),
        early: () => early().catch(() => false),
        broadcast(transaction) {
          if (settled) return;
          answered = true;
          answer({ ok: true, pending: true, transaction, final: finalOutcome });
        },
        answeredEarly: () => answered,
        resolve(outcome) {
          settled = true;
          final.resolve(outcome);
          if (!answered) answer(outcome);
        },
        reject(err) {
          final.reject(err);
          if (!answered) fail(err);
        },
      };
      this.awaited.delete(awaitedKey(authorization));
      this.arrivals.push(performance.now());
      this.queue.push(waiting);
      const n = this.queue.length;
      if (n >= this.maxSize || (n >= this.expected && this.onChain === 0 && this.nothingAwaited())) this.close();
      else this.timer ??= setTimeout(() => this.close(), this.settings.windowMs);
    });
  }

  /**
   * Whether every payment verified here in the last window has been handed to settle (or its
   * window passed); those whose window passed are forgotten, oldest first.
   */
  private nothingAwaited(): boolean {
    const since = performance.now() - this.settings.windowMs;
    for (const [key, at] of this.awaited) {
      if (at >= since) return false;
      this.awaited.delete(key);
    }
    return true;
  }

  /** How many authorizations arrived in the last windowMs. */
  private arrivedInWindow(): number {
    const since = performance.now() - this.settings.windowMs;
    while (this.arrivalsFrom < this.arrivals.length && (this.arrivals[this.arrivalsFrom] as number) < since) this.arrivalsFrom++;
    if (this.arrivalsFrom > 1024) {
      this.arrivals = this.arrivals.slice(this.arrivalsFrom);
      this.arrivalsFrom = 0;
    }
    return this.arrivals.length - this.arrivalsFrom;
  }

  /** Closes the open batch now and waits for every batch in flight. */
  async drain(): Promise<void> {
    this.close();
    await Promise.allSettled([...this.inFlight]);
  }

  private close(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const queued = this.queue;
    this.queue = [];
    if (queued.length === 0) return;
    // A batch its window closed holds that window's demand (its first arrival is a window old by now).
    this.expected = nextExpectedSize(this.expected, Math.max(queued.length, this.arrivedInWindow()), this.maxSize);
    // More than a transaction carries only after `route` lowered it: one batch per transaction's worth.
    for (let i = 0; i < queued.length; i += this.maxSize) {
      const chain = this.chain;
      const run = this.run(queued.slice(i, i + this.maxSize), chain).finally(() => this.inFlight.delete(run));
      this.inFlight.add(run);
    }
  }

  private async run(batch: Waiting[], chain: BatchChain): Promise<void> {
    const report: BatchReport = { size: batch.length, sent: 0, transferred: 0, outcome: "not_sent", gasUsed: 0n, transaction: null };
    try {
      await this.settleBatch(batch, report, chain);
    } catch (err) {
      // A fault of our own code: nobody may wait forever, and the outcome is not known.
      const unknown = new SettlementUnknown(`settlement failed: ${(err as Error).message}`, report.transaction);
      for (const w of batch) w.reject(unknown);
      report.outcome = "unknown";
    } finally {
      this.onBatch(report);
    }
  }

  private async settleBatch(batch: Waiting[], report: BatchReport, chain: BatchChain): Promise<void> {
    let answer: () => void;
    this.onChain++;
    let counted = true;
    const broadcast = () => {
      if (counted) this.onChain--;
      counted = false;
    };
    try {
      answer = await this.askChain(batch, report, broadcast, chain);
    } finally {
      broadcast();
    }
    answer();
  }

  /**
   * The batch's chain work: simulation (refusals answered at once), broadcast, receipt. Gives
   * back how the payments sent are answered, once the chain has nothing more to say.
   */
  private async askChain(batch: Waiting[], report: BatchReport, broadcast: () => void, chain: BatchChain): Promise<() => void> {
    const calls = batch.map((w) => transferCall(this.token, w.authorization));
    let results, readiness;
    try {
      [results, readiness] = await Promise.all([chain.simulate(calls), Promise.all(batch.map((w) => w.ready))]);
    } catch (err) {
      // The chain's error stays its cause, not its text: viem's messages carry the RPC URL and its key.
      const notSent = new SettlementNotSent("the chain could not be asked", { cause: err });
      return () => batch.forEach((w) => w.reject(notSent));
    }
    const go: Waiting[] = [];
    const sending: Call3[] = [];
    batch.forEach((w, i) => {
      const r = results[i];
      if (!readiness[i]) w.resolve(WITHDRAWN);
      else if (r?.success) {
        go.push(w);
        sending.push(calls[i] as Call3);
      } else w.resolve(refusalOfRevert(r ? revertText(r.returnData) : "not simulated"));
    });
    report.sent = go.length;
    if (go.length === 0) {
      report.outcome = "refused";
      return () => undefined;
    }

    let hash: Hex;
    try {
      hash = await chain.send(sending);
    } catch (err) {
      // The node may have taken it before the error: unknown, reconciliation reads each authorization.
      report.outcome = "unknown";
      chain.resync();
      const unknown = new SettlementUnknown(`the settlement batch may have been sent: ${(err as Error).message}`, null);
      return () => go.forEach((w) => w.reject(unknown));
    }
    report.transaction = hash;
    broadcast();

    // The node took it. Those let answer before their block are answered now when the last
    // batch's first receipt ask found it unmined (a chain that mines every block time: that ask
    // would only delay them), else once this batch's first ask finds none (a chain that mined
    // it at once answers them final; a node that fails that ask leaves them waiting).
    const answerEarly = () => go.forEach((w) => void w.early().then((yes) => yes && w.broadcast(hash)));
    const atBroadcast = this.unminedAtFirstAsk;
    if (atBroadcast) answerEarly();
    const receipt = await this.awaitReceipt(chain, hash, (unmined) => {
      this.unminedAtFirstAsk = unmined;
      if (unmined && !atBroadcast) answerEarly();
    });
    if (!receipt) {
      report.outcome = "unknown";
      chain.resync();
      const unknown = new SettlementUnknown(`no receipt for ${hash}: not mined within ${this.settings.receiptTimeoutMs} ms, or the node does not answer`, hash);
      return () => go.forEach((w) => w.reject(unknown));
    }
    report.gasUsed = receipt.gasUsed;
    report.outcome = receipt.status === "success" ? "mined" : "reverted";
    const transferred = transfersIn(receipt.logs, this.token);
    const depth = this.settings.finalConfirmations ?? 1;
    const confirming: Waiting[] = [];
    return () => {
      for (const w of go) {
        if (receipt.status === "success" && transferred(w.authorization)) {
          report.transferred++;
          if (depth > 1 && w.answeredEarly()) confirming.push(w);
          else w.resolve({ ok: true, transaction: hash });
        } else {
          const why = receipt.status === "success" ? "its transfer failed inside the settlement batch" : "the settlement batch reverted";
          w.resolve({ ok: false, reason: "payment_settlement_failed", detail: `${why}; nothing moved`, transaction: hash });
        }
      }
      if (confirming.length > 0) void this.confirm(chain, hash, receipt.block ?? null, depth, confirming);
    };
  }

  /**
   * Ends the transfers answered before their block once their transaction is `depth` blocks
   * deep and its receipt still carries them. A receipt gone (its block reorganized away, the
   * transaction not mined again) or no block in time leaves them unknown: reconciliation reads
   * each authorization on chain, and sends it again or records the loss.
   */
  private async confirm(chain: BatchChain, hash: Hex, mined: bigint | null, depth: number, waiting: Waiting[]): Promise<void> {
    const deadline = performance.now() + this.settings.receiptTimeoutMs * depth;
    let seen = mined;
    try {
      if (seen === null) seen = await chain.blockNumber();
      const target = seen + BigInt(depth - 1);
      while (seen < target) {
        const next = await this.blocks.after(seen, deadline);
        if (next === "failed" || next === "deadline") throw new SettlementUnknown(`${hash} was mined; no block past it came to confirm it`, hash);
        seen = next;
      }
      const again = await chain.receipt(hash);
      const transferred = again?.status === "success" ? transfersIn(again.logs, this.token) : null;
      for (const w of waiting) {
        if (transferred?.(w.authorization)) w.resolve({ ok: true, transaction: hash });
        else w.reject(new SettlementUnknown(`${hash} was mined and its transfer is no longer on the chain at ${depth} blocks (a reorganized block)`, hash));
      }
      if (!transferred) chain.resync();
    } catch (err) {
      const unknown = err instanceof SettlementUnknown ? err : new SettlementUnknown(`${hash} was mined; its depth could not be read`, hash);
      for (const w of waiting) w.reject(unknown);
    }
  }

  /**
   * Polls for the receipt until it comes or the timeout passes. A node that fails to answer
   * RECEIPT_LOOKUP_ATTEMPTS times in a row ends the wait at once: the outcome is unknown, and
   * reconciliation reads each authorization later.
   */
  private async awaitReceipt(chain: BatchChain, hash: Hex, firstAsk: (unmined: boolean) => void) {
    const deadline = performance.now() + this.settings.receiptTimeoutMs;
    let failures = 0;
    let block: bigint | null = null;
    for (let asked = 0; ; asked++) {
      let unmined = false;
      try {
        const receipt = await chain.receipt(hash);
        if (asked === 0) firstAsk(receipt === null);
        if (receipt) return receipt;
        unmined = true;
        failures = 0;
      } catch {
        if (++failures >= RECEIPT_LOOKUP_ATTEMPTS) return null;
      }
      if (performance.now() + this.settings.receiptPollMs > deadline) return null;
      if (!unmined) {
        await sleep(this.settings.receiptPollMs);
        continue;
      }
      // Not mined: asked again once a new block is there, one watch of the block number for
      // every batch waiting (a 2 s chain would otherwise be asked for each batch's receipt
      // every poll, about twenty times per block per batch in flight).
      const next = await this.blocks.after(block, deadline);
      if (next === "failed") return null;
      if (next === "deadline") return null;
      block = next;
    }
  }
}

/**
 * The chain's block number, watched by one poll every `pollMs` while anyone waits for a block
 * after a given one. `after(null)` waits for the next block from now.
 */
class BlockWatch {
  private waiters: { after: bigint | null; resolve(r: bigint | "failed" | "deadline"): void; deadline: number }[] = [];
  private polling = false;
  private latest: bigint | null = null;

  constructor(
    private readonly chain: Pick<BatchChain, "blockNumber">,
    private readonly pollMs: number,
  ) {}

  /** The first block number past `after` (past the one seen now, when null); "deadline" past `deadline`, "failed" when the node stopped answering. */
  after(after: bigint | null, deadline: number): Promise<bigint | "failed" | "deadline"> {
    return new Promise((resolve) => {
      this.waiters.push({ after: after ?? this.latest, resolve, deadline });
      if (!this.polling) void this.poll();
    });
  }

  private async poll(): Promise<void> {
    this.polling = true;
    let failures = 0;
    try {
      while (this.waiters.length > 0) {
        await sleep(this.pollMs);
        let block: bigint | null = null;
        try {
          block = await this.chain.blockNumber();
          failures = 0;
        } catch {
          failures++;
        }
        const now = performance.now();
        const waiting = this.waiters;
        this.waiters = [];
        for (const w of waiting) {
          if (block !== null && (w.after === null || block > w.after)) w.resolve(block);
          else if (failures >= RECEIPT_LOOKUP_ATTEMPTS) w.resolve("failed");
          else if (now + this.pollMs > w.deadline) w.resolve("deadline");
          else this.waiters.push(w.after === null && block !== null ? { ...w, after: block } : w);
        }
        if (block !== null) this.latest = block;
      }
    } finally {
      this.polling = false;
    }
  }
}
