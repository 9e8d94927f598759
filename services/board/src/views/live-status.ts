import { BoardStatus, paymentsStatus, SETTLEMENT_EVENT_SUBJECT, SettlementEvent } from "@board/proto";
import { request, type Logger, type NatsConnection } from "@board/service-kit";
import { publish, type Publication, type PublishedView } from "../publication.js";

/**
 * The status view with the figures other services own: the last settlement time comes from
 * payments (asked once at start, then from its settlement events). The view is re-rendered
 * only when that time or the publication changes, never per read.
 */
export class LiveStatus {
  private lastSettlementAt: string | null = null;
  private cache: { pub: Publication; at: string | null; view: PublishedView } | null = null;

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
    try {
      const status = await request(this.nc, paymentsStatus, {}, { timeoutMs: 1_000 });
      if (status.last_settlement_at) this.note(status.last_settlement_at);
    } catch (err) {
      // Payments may start later; its next settlement event brings the time.
      this.log.info({ err }, "payments status unavailable at start");
    }
    return () => sub.unsubscribe();
  }

  private note(at: string): void {
    if (this.lastSettlementAt === null || Date.parse(at) > Date.parse(this.lastSettlementAt)) this.lastSettlementAt = at;
  }

  view(pub: Publication): PublishedView | undefined {
    const at = this.lastSettlementAt;
    if (at === null) return pub.views.get("status");
    if (this.cache?.pub === pub && this.cache.at === at) return this.cache.view;
    const { last_settlement_at: _settled, ...pending } = pub.status.pending;
    const view = publish(pub.board, { ...pub.status, last_settlement_at: at, pending }, BoardStatus);
    this.cache = { pub, at, view };
    return view;
  }
}

function safeJson(data: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(data));
  } catch {
    return null;
  }
}
