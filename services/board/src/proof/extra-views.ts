import { AsofSampleView, PerfView, PROOF_WINDOW, ProofView, SignalAuditView } from "@board/proto";
import { perfView } from "../audit/perf.js";
import { signalAuditView } from "../audit/signal-audit.js";
import type { ExtraView } from "../publication.js";
import type { SnapshotStore, StoredSnapshot } from "../store.js";
import { asofSampleView, proofView } from "./views.js";


/**
 * The views that come from the board's own records rather than from one snapshot: the
 * proof chain, the committed sample day, the signal audit and performance.
 */
export async function recordViews(store: SnapshotStore, current: StoredSnapshot, delayed: StoredSnapshot | null): Promise<ExtraView[]> {
  const { total, rows } = await store.commitments(PROOF_WINDOW);
  const days = await store.dailyMarks();
  const views: ExtraView[] = [
    { view: "proof", board: current.board, content: proofView(total, rows), schema: ProofView },
    { view: "signal-audit", board: current.board, content: signalAuditView(days), schema: SignalAuditView },
    { view: "perf", board: current.board, content: perfView(days), schema: PerfView },
  ];
  const sampleCommitment = delayed ? await store.commitmentOf(delayed.hash) : null;
  if (delayed && sampleCommitment)
    views.push({ view: "asof-sample", board: delayed.board, content: asofSampleView(delayed.board, sampleCommitment), schema: AsofSampleView });
  return views;
}
