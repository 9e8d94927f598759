import { baseEnv, parseEnv } from "@board/service-kit";
import { z } from "zod";

export const BoardEnv = baseEnv(9102).extend({
  /** Minutes between publishes in market hours; drives next_refresh_at. */
  REFRESH_MINUTES: z.coerce.number().int().min(1).max(60).default(5),
  /** Sessions of name history and verdict log kept; the reads reach back up to 250. */
  HISTORY_RETENTION_SESSIONS: z.coerce.number().int().min(250).max(10_000).default(500),
  /** Sessions of boards /api/board/changes compares from (a `since` older than these gets a 410). */
  CHANGES_RETENTION_SESSIONS: z.coerce.number().int().min(2).max(1_000).default(10),
});
export type BoardEnv = z.infer<typeof BoardEnv>;

export const loadEnv = (): BoardEnv => parseEnv(BoardEnv, process.env, "board");
