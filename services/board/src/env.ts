import { baseEnv, parseEnv } from "@board/service-kit";
import { z } from "zod";

export const BoardEnv = baseEnv(9102).extend({
  /** Minutes between publishes in market hours; drives next_refresh_at. */
  REFRESH_MINUTES: z.coerce.number().int().min(1).max(60).default(5),
});
export type BoardEnv = z.infer<typeof BoardEnv>;

export const loadEnv = (): BoardEnv => parseEnv(BoardEnv, process.env, "board");
