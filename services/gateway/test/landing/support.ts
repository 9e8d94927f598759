import { FreeBoard, FullBoard, ROUTES, type BoardContent, type BookCode } from "@board/proto";
import { fixtureSnapshot } from "@board/service-kit/testing";
import type { LandingInput } from "../../src/landing/render.js";

const FRESHNESS = { market_open: false, data_age_seconds: 60, next_refresh_at: "2026-11-20T09:30:00-05:00", poll_hint: "test" };

/** A delayed full board from the shared fixture, edited by `edit` before it is checked against FullBoard. */
export function delayedBoard(edit: (b: BoardContent) => BoardContent = (b) => b): FullBoard {
  const { board } = fixtureSnapshot({ asofDaily: "2026-11-19", computedAt: "2026-11-19T13:00:00-08:00", seed: 1 });
  return FullBoard.parse({ ...edit(board), freshness: FRESHNESS });
}

/** The free slice of `delayed` as the FreeBoard contract describes it: top 3 names per book by opportunity. */
export function freeBoard(delayed: FullBoard): FreeBoard {
  const top = (code: BookCode) =>
    delayed.names
      .filter((r) => r.bk.includes(code))
      .sort((a, b) => b.opp_score - a.opp_score || a.sym.localeCompare(b.sym))
      .slice(0, 3);
  return FreeBoard.parse({
    product: delayed.product,
    free: true,
    delayed: true,
    asof_daily: delayed.asof_daily,
    computed_at: delayed.computed_at,
    book_order: delayed.book_order,
    books: Object.fromEntries(
      delayed.book_order.map((code) => {
        const regime = delayed.books[code]!.regime;
        return [code, { verdict: regime.verdict, stance: regime.stance, line: regime.line, top: top(code) }];
      }),
    ),
    upgrade: { full: "/api/board/agent" },
    disclaimer: delayed.disclaimer,
    freshness: FRESHNESS,
  });
}

export function drawnInput(delayed = delayedBoard()): LandingInput {
  return { slice: { kind: "drawn", free: freeBoard(delayed), delayed }, routes: ROUTES };
}
