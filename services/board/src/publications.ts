import { BusError, type Logger } from "@board/service-kit";
import { recordViews } from "./proof/extra-views.js";
import { buildPublication, type Publication } from "./publication.js";
import type { SnapshotStore, StoredSnapshot } from "./store.js";

/** Publications replaced lately, kept so a redelivery reads the board it sold without rendering it again. */
const RECENT_PUBLICATIONS = 6;

/** The live publication, and those of earlier snapshots a paid read may be redelivered from. */
export class Publications {
  private live: Publication | null = null;
  private readonly recent = new Map<string, Publication>();

  constructor(
    private readonly store: SnapshotStore,
    private readonly log: Logger,
  ) {}

  current(): Publication | null {
    return this.live;
  }

  /** Renders the newest stored snapshot (and its delayed companion) unless it is already live; the publication that went live, if one did. */
  async republish(): Promise<Publication | null> {
    const latest = await this.store.latest();
    if (!latest || this.live?.snapshotHash === latest.hash) return null;
    const pub = await this.render(latest);
    this.live = pub;
    this.keep(pub);
    this.log.info({ asof: latest.board.asof_daily, computed_at: latest.board.computed_at }, "publication live");
    return pub;
  }

  /** The publication of a stored snapshot: live, kept, or rendered again from the store (after a restart). */
  async of(hash: string): Promise<Publication> {
    const known = this.live?.snapshotHash === hash ? this.live : this.recent.get(hash);
    if (known) return known;
    const stored = await this.store.byHash(hash);
    if (!stored) throw new BusError("not_found", 404, "that board version is not stored");
    const pub = await this.render(stored);
    this.keep(pub);
    return pub;
  }

  private async render(stored: StoredSnapshot): Promise<Publication> {
    const delayed = await this.store.latestBefore(stored.board.asof_daily);
    const committed = await this.store.commitmentOf(stored.hash);
    const pub = buildPublication({
      current: stored.board,
      currentHash: stored.hash,
      delayed: delayed?.board ?? null,
      snapshotsStored: await this.store.count(),
      snapshot: stored.snapshot,
      extraViews: await recordViews(this.store, stored, delayed),
    });
    // Stored and committed in one transaction (store.ts): a stored snapshot always has its commitment.
    if (!committed) throw new Error(`snapshot ${stored.hash} is stored without a commitment`);
    return { ...pub, commitment: { seq: committed.seq, content_hash: committed.contentHash, commitment: committed.commitment } };
  }

  private keep(pub: Publication): void {
    this.recent.delete(pub.snapshotHash);
    this.recent.set(pub.snapshotHash, pub);
    for (const hash of this.recent.keys()) if (this.recent.size > RECENT_PUBLICATIONS) this.recent.delete(hash);
  }
}
