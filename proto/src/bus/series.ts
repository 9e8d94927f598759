/**
 * The SERIES stream: each board's per-name daily series (records/series.ts), one message per
 * name and session, apart from the snapshot so the board's message stays small. A later board
 * of a session replaces the name's message of that session (one kept per subject).
 */
export const SERIES_STREAM = "SERIES";
export const SERIES_SUBJECTS = "board.series.v1.>";

/** A subject token holds no dot: BRK.B is BRK_B (no symbol has an underscore). */
export const seriesSubject = (asofDaily: string, sym: string): string => `board.series.v1.${asofDaily}.${sym.replace(/\./g, "_")}`;
