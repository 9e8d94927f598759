// Buy a view only when it changed (SPEC.md 2.3 and 6): poll the free /api/board/state, compare
// the view's content hash with the one last bought, buy on a change, then wait as the freshness
// block says: not before next_refresh_at (the payload would be identical), within the bounds
// given. A state read that fails is retried with backoff; a buy that fails is tried again at the
// next poll.

import type { BoardState, ViewName } from "@board/proto";
import type { ClientError, Result } from "./errors.js";

export interface WatchOptions {
  /** Stops the watch (the iterator ends). */
  signal?: AbortSignal;
  /** Never poll sooner than this after a poll (default 2 s). */
  minIntervalMs?: number;
  /** Never wait longer than this between polls, whatever next_refresh_at says (default 10 min). */
  maxIntervalMs?: number;
}

export type WatchEvent<R> =
  /** The view's hash changed (or this is the first poll) and it was read: `result` is the read, paid or refused. */
  | { type: "read"; view_hash: string; poll_hint: string; next_refresh_at: string; result: R }
  /** /api/board/state could not be read; the next try is in `retry_in_ms`. */
  | { type: "poll_failed"; error: ClientError; retry_in_ms: number };

export interface WatchDeps<R extends { ok: boolean }> {
  state(): Promise<Result<BoardState>>;
  read(): Promise<R>;
  now?: () => number;
}

export async function* watchView<R extends { ok: boolean }>(view: ViewName, deps: WatchDeps<R>, opts: WatchOptions = {}): AsyncGenerator<WatchEvent<R>> {
  const min = opts.minIntervalMs ?? 2_000;
  const max = Math.max(min, opts.maxIntervalMs ?? 600_000);
  const now = deps.now ?? Date.now;
  let bought: string | null = null;
  let failures = 0;
  while (!opts.signal?.aborted) {
    const state = await deps.state();
    if (!state.ok) {
      const retry = Math.min(max, min * 2 ** Math.min(failures++, 8));
      yield { type: "poll_failed", error: state.error, retry_in_ms: retry };
      await sleep(retry, opts.signal);
      continue;
    }
    failures = 0;
    const { freshness } = state.value;
    // A view the board does not hash (yet) follows the snapshot as a whole.
    const hash = state.value.views[view] ?? state.value.snapshot;
    if (hash !== bought) {
      const result = await deps.read();
      if (result.ok) bought = hash;
      yield { type: "read", view_hash: hash, poll_hint: freshness.poll_hint, next_refresh_at: freshness.next_refresh_at, result };
    }
    const untilRefresh = Date.parse(freshness.next_refresh_at) - now();
    await sleep(Math.min(max, Math.max(min, untilRefresh)), opts.signal);
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}
