import { fileURLToPath } from "node:url";
import { boardRead } from "@board/proto";
import { bindBytes, startRuntime, type Runtime } from "@board/service-kit";
import pkg from "../package.json" with { type: "json" };
import { announcePublication } from "./announce.js";
import { consumeSnapshots } from "./consumer.js";
import { HistoryReads } from "./history/reads.js";
import { HistoryViews, readFromTables } from "./history/views.js";
import * as schema from "./db/schema.js";
import type { BoardEnv } from "./env.js";
import type { Publication } from "./publication.js";
import { Publications } from "./publications.js";
import { readView } from "./read.js";
import { LiveStatus } from "./views/live-status.js";
import { gaugePublication } from "./publication-metrics.js";
import { gaugeSnapshotAge } from "./snapshot-age.js";
import { SnapshotStore } from "./store.js";

export interface BoardService {
  readonly runtime: Runtime<typeof schema>;
  readonly store: SnapshotStore;
  publication(): Publication | null;
  stop(): Promise<void>;
}

/** Wires the board: database, stored snapshots, the stream consumer, then the read endpoint. */
export async function startBoard(env: BoardEnv, opts: { now?: () => Date } = {}): Promise<BoardService> {
  const now = opts.now ?? (() => new Date());
  const rt = await startRuntime({
    service: "board",
    version: pkg.version,
    description: "Stores published snapshots and serves every pre-rendered board view",
    env,
    database: { migrationsFolder: fileURLToPath(new URL("../drizzle", import.meta.url)), schema },
  });
  try {
    const store = new SnapshotStore(rt.database!.db, now, { sessions: env.HISTORY_RETENTION_SESSIONS, changeSessions: env.CHANGES_RETENTION_SESSIONS });
    const publications = new Publications(store, rt.log);
    const publication = () => publications.current();
    const announced = { nc: rt.bus.nc, log: rt.log, now, refreshMinutes: env.REFRESH_MINUTES };
    const republish = async () => {
      const live = await publications.republish();
      if (live) announcePublication(announced, live);
    };

    gaugeSnapshotAge(rt.metrics, publication, now);
    gaugePublication(rt.metrics, publication, now);
    await republish();
    const consumer = await consumeSnapshots({ nc: rt.bus.nc, store, log: rt.log, onCaughtUp: republish });
    rt.lifecycle.onStop("snapshot consumer", () => consumer.stop());
    const liveStatus = new LiveStatus(rt.bus.nc, rt.log);
    rt.lifecycle.onStop("status events", await liveStatus.start());
    const status = (pub: Publication, stale: boolean) => liveStatus.view(pub, stale);
    const history = new HistoryViews(new HistoryReads(rt.database!.db), store);
    await rt.serve([
      bindBytes(boardRead, async (req) => {
        const pub = req.snapshot ? await publications.of(req.snapshot) : publication();
        // A history read (or a page of the proof chain) is cut from the tables at the read's board (pub), then served like any view.
        const made = pub && readFromTables(req.view, req.params) ? await history.view(pub, req.view, req.params ?? {}) : undefined;
        return readView({ publication: () => pub, now, refreshMinutes: env.REFRESH_MINUTES, status }, req, made);
      }),
    ]);
    return { runtime: rt, store, publication, stop: () => rt.stop() };
  } catch (err) {
    await rt.stop();
    throw err;
  }
}
