// The history reads in the bench: each read as a licensed client asks for it, on the two bench
// boards (bench/boards.ts), and the path the bare server serves its bytes under (its ceiling).
import { boardContentHash } from "@board/proto";
import type { HISTORY_ROW_IDS } from "./args.js";
import { benchBoards } from "./boards.js";

export type HistoryRowId = (typeof HISTORY_ROW_IDS)[number];

export interface HistoryRead {
  label: string;
  /** The read through the stack. */
  path: string;
  /** Where the bare server serves the same bytes. */
  barePath: string;
}

/** A dated board, the verdict log, ten names' history over 250 sessions, and the changes since the first board. */
export function historyReads(): Record<HistoryRowId, HistoryRead> {
  const [first] = benchBoards();
  const ten = first.board.names.slice(0, 10).map((n) => n.sym).join(",");
  return {
    "history-asof": { label: "licensed dated board (asof?date=)", path: `/api/board/asof?date=${first.board.asof_daily}`, barePath: "/history/asof" },
    "history-regime": { label: "licensed verdict log (regime/history)", path: "/api/board/regime/history?days=250", barePath: "/history/regime" },
    "history-names": { label: "licensed name history, 10 names", path: `/api/board/name/history?sym=${ten}&days=250`, barePath: "/history/names" },
    "history-changes": {
      label: "licensed changes since the first board",
      path: `/api/board/changes?since=${boardContentHash(first.board as unknown as Record<string, unknown>)}`,
      barePath: "/history/changes",
    },
  };
}
