import { liveSnapshot } from "@board/service-kit/testing";

/** NAMES_ON (seed 5) and SELECTIVE (seed 6) boards of the same day, five minutes apart. */
export const liveToday = liveSnapshot({ asofDaily: "2026-11-20", computedAt: "2026-11-20T09:55:00-08:00", seed: 5, intraday: true, names: 200 });
export const liveLater = liveSnapshot({ asofDaily: "2026-11-20", computedAt: "2026-11-20T10:00:00-08:00", seed: 6, intraday: true, names: 200 });
