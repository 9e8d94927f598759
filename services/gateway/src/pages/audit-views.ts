import { boardRead, BoardStatus, PerfView, SignalAuditView, type ViewName } from "@board/proto";
import { isBusError, requestBytes } from "@board/service-kit";
import type { z } from "zod";
import type { BoardViewDeps } from "../reads/board-view.js";

/** A view as read, with the ETag the board gave it. */
interface Known<T> {
  etag: string;
  value: T;
}

/** The three free views /audit is drawn from: the same bytes /api/board/signal-audit, /api/perf and /api/board/status serve. */
export interface AuditViews {
  audit: Known<SignalAuditView>;
  perf: Known<PerfView>;
  status: Known<BoardStatus>;
}

export type AuditRead = { kind: "drawn"; views: AuditViews } | { kind: "warming_up" } | { kind: "unreachable"; err: unknown };

/**
 * Reads the three free views over the bus as the free routes do (board.v1.read), each
 * conditionally on its ETag in `last`: an unchanged view answers 304 and its parsed copy is kept.
 */
export async function readAuditViews(deps: BoardViewDeps, last: AuditViews | null): Promise<AuditRead> {
  try {
    const [audit, perf, status] = await Promise.all([
      readView(deps, "signal-audit", SignalAuditView, last?.audit ?? null),
      readView(deps, "perf", PerfView, last?.perf ?? null),
      readView(deps, "status", BoardStatus, last?.status ?? null),
    ]);
    return { kind: "drawn", views: { audit, perf, status } };
  } catch (err) {
    if (isBusError(err) && err.code === "snapshot_unavailable") return { kind: "warming_up" };
    return { kind: "unreachable", err };
  }
}

async function readView<S extends z.ZodType>(deps: BoardViewDeps, view: ViewName, schema: S, known: Known<z.infer<S>> | null): Promise<Known<z.infer<S>>> {
  const reply = await requestBytes(deps.nc, boardRead, { view, encoding: "identity", ...(known ? { if_none_match: known.etag } : {}) }, { timeoutMs: deps.timeoutMs });
  if (reply.meta.status === 304 && known) return known;
  return { etag: reply.meta.etag, value: schema.parse(JSON.parse(Buffer.from(reply.body).toString("utf8"))) };
}
