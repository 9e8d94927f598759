import {
  BoardStatus,
  meteringReadsServed,
  PAYMENT_RAILS_EVENT_SUBJECT,
  PaymentRails,
  paymentsStatus,
  READS_SERVED_EVENT_SUBJECT,
  ReadsServedReply,
  SETTLEMENT_EVENT_SUBJECT,
  SettlementEvent,
} from "@board/proto";
import { isBusError, request, type Logger, type NatsConnection } from "@board/service-kit";
import { publish, type Publication, type PublishedView } from "../publication.js";
import { PAYMENTS_PENDING } from "./status.js";

/**
 * The status view with the figures other services own: the last settlement time and the
 * payments block (mode and rails) come from payments, the reads served from metering (each
 * asked once at start, then followed through their events). The view is re-rendered only when
 * one of them or the publication changes, never per read.
 */
export class LiveStatus {
  private lastSettlementAt: string | null = null;
  private readsServed: ReadsServedReply | null = null;
  /** As the last payments replica to speak said (replicas agree on mode; each says its own rails). */
  private payments: PaymentRails | null = null;
  /** Bumped on every change of a figure, so the cached view knows it is stale. */
  private version = 0;
  private cache: { pub: Publication; version: number; stale: boolean; view: PublishedView } | null = null;

  constructor(
    private readonly nc: NatsConnection,
    private readonly log: Logger,
  ) {}

  async start(): Promise<() => void> {
    const sub = this.nc.subscribe(SETTLEMENT_EVENT_SUBJECT, {
      callback: (err, msg) => {
        if (err) return;
        const event = SettlementEvent.safeParse(safeJson(msg.data));
        if (event.success) this.note(event.data.settled_at);
      },
    });
    const reads = this.nc.subscribe(READS_SERVED_EVENT_SUBJECT, {
      callback: (err, msg) => {
        if (err) return;
        const event = ReadsServedReply.safeParse(safeJson(msg.data));
        if (event.success) this.noteReads(event.data);
      },
    });
    const rails = this.nc.subscribe(PAYMENT_RAILS_EVENT_SUBJECT, {
      callback: (err, msg) => {
        if (err) return;
        const event = PaymentRails.safeParse(safeJson(msg.data));
        if (event.success) this.notePayments(event.data);
      },
    });
    const [status, served] = await Promise.allSettled([
      request(this.nc, paymentsStatus, {}, { timeoutMs: 1_000 }),
      request(this.nc, meteringReadsServed, {}, { timeoutMs: 1_000 }),
    ]);
    // A service that starts later brings its figure with its next event: not being there yet is
    // the normal start order, said in one line with a reason code, never as a failure.
    if (status.status === "fulfilled") {
      if (status.value.last_settlement_at) this.note(status.value.last_settlement_at);
      // The rails block as the events carry it (the reply's settlement figures are not part of it).
      this.notePayments(PaymentRails.parse(status.value));
    } else this.log.info({ reason: unavailable(status.reason) }, "payments status unavailable at start; following its events");
    if (served.status === "fulfilled") this.noteReads(served.value);
    else this.log.info({ reason: unavailable(served.reason) }, "metering reads served unavailable at start; following its events");
    return () => {
      sub.unsubscribe();
      reads.unsubscribe();
      rails.unsubscribe();
    };
  }

  private notePayments(payments: PaymentRails): void {
    if (JSON.stringify(payments) === JSON.stringify(this.payments)) return;
    this.payments = payments;
    this.version++;
  }

  private note(at: string): void {
    if (this.lastSettlementAt === null || Date.parse(at) > Date.parse(this.lastSettlementAt)) {
      this.lastSettlementAt = at;
      this.version++;
    }
  }

  /** Replicas of metering publish after each batch; an older total arriving late is ignored. */
  private noteReads(reads: ReadsServedReply): void {
    if (this.readsServed === null || Date.parse(reads.as_of) >= Date.parse(this.readsServed.as_of)) {
      this.readsServed = reads;
      this.version++;
    }
  }

  /** `stale`: the scanner has not published for longer than it should have (see staleBlock). */
  view(pub: Publication, stale = false): PublishedView | undefined {
    const at = this.lastSettlementAt;
    const reads = this.readsServed;
    const payments = this.payments;
    if (at === null && reads === null && payments === null && !stale) return pub.views.get("status");
    if (this.cache?.pub === pub && this.cache.version === this.version && this.cache.stale === stale) return this.cache.view;
    const { last_settlement_at: _settled, reads_served: _reads, payments: _payments, ...rest } = pub.status.pending;
    const pending = {
      ...rest,
      ...(at === null ? { last_settlement_at: pub.status.pending.last_settlement_at ?? "null until payments settles a paid read" } : {}),
      ...(reads === null ? { reads_served: pub.status.pending.reads_served ?? "null until metering counts served reads" } : {}),
      ...(payments === null ? { payments: pub.status.pending.payments ?? PAYMENTS_PENDING } : {}),
    };
    const view = publish(
      pub.board,
      { ...pub.status, status: stale ? "stale" : "ok", last_settlement_at: at, reads_served: reads?.reads_served ?? null, payments, pending },
      BoardStatus,
    );
    this.cache = { pub, version: this.version, stale, view };
    return view;
  }
}

/** Why a service's figure could not be asked at start, as a reason code (no responder: it is not on the bus yet). */
function unavailable(err: unknown): string {
  if (isBusError(err)) return err.code;
  return "no_answer";
}

function safeJson(data: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(data));
  } catch {
    return null;
  }
}
