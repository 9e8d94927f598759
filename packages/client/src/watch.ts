// Buy a view only when it changed (SPEC.md 2.3 and 6). Two ways to hear of a change:
// - events (the default): the free /api/board/events stream sends each published board's view
//   hashes as it goes live; the watch reads /api/board/state once at the start and after each
//   reconnection (what it missed), then buys when an event's hash for the view differs from the
//   one last bought. A lost stream is reopened with Last-Event-ID and backoff; a board without
//   the stream (404) is polled instead.
// - poll: read the free /api/board/state, compare, buy on a change, then wait as the freshness
//   block says: not before next_refresh_at (the payload would be identical), within the bounds
//   given.
// Either way a state read that fails is retried with backoff, and a buy that fails is tried again
// (at the next poll; with events, after minIntervalMs from a fresh state read).

import type { BoardPublishedEvent, BoardState, ViewName } from "@board/proto";
import type { ClientError, Result } from "./errors.js";
import type { StreamEnd } from "./events.js";

export interface WatchOptions {
  /** Stops the watch (the iterator ends). */
  signal?: AbortSignal;
  /** Never poll sooner than this after a poll (default 2 s). */
  minIntervalMs?: number;
  /** Never wait longer than this between polls, whatever next_refresh_at says (default 10 min); with events, the longest backoff. */
  maxIntervalMs?: number;
  /** How to hear of a new board: the event stream (default), or polling /api/board/state. */
  via?: "events" | "poll";
}

export type WatchEvent<R> =
  /** The view's hash changed (or this is the first poll) and it was read: `result` is the read, paid or refused. */
  | { type: "read"; view_hash: string; poll_hint: string; next_refresh_at: string; result: R }
  /** /api/board/state could not be read; the next try is in `retry_in_ms`. */
  | { type: "poll_failed"; error: ClientError; retry_in_ms: number }
  /** The event stream was refused or lost; it is reopened (from the last event) in `retry_in_ms`. */
  | { type: "events_lost"; error: ClientError; retry_in_ms: number }
  /** The board has no event stream (404): the watch polls /api/board/state from now on. */
  | { type: "polling"; reason: ClientError };

export interface WatchDeps<R extends { ok: boolean }> {
  state(): Promise<Result<BoardState>>;
  /** Buys; `previous` is the hash last bought (null before the first buy). */
  read(previous: string | null): Promise<R>;
  /** A refused buy that trying again cannot mend (a `since` too old): the watch moves on to the current hash. */
  settled?(result: R): boolean;
  /** The event stream from after `lastEventId` (events.ts); without it the watch polls. */
  events?(lastEventId: number | undefined, signal: AbortSignal | undefined): AsyncGenerator<BoardPublishedEvent, StreamEnd | null>;
  now?: () => number;
}

/** What a watch follows: the hash it compares, and whether the first one is bought or only noted. */
interface Watched {
  key(views: Record<string, string>, snapshot: string): string;
  /** True: the hash seen first is where the watch starts, nothing is bought for it (a watch of changes). */
  baseline: boolean;
}

/** Buys a view when its hash changes: the view's, or the snapshot's for a view the board does not hash (yet). */
export function watchView<R extends { ok: boolean }>(view: ViewName, deps: WatchDeps<R>, opts: WatchOptions = {}): AsyncGenerator<WatchEvent<R>> {
  return watchBoard({ key: (views, snapshot) => views[view] ?? snapshot, baseline: false }, deps, opts);
}

/**
 * Buys what changed each time the board does: `read(previous)` is given the snapshot hash of the
 * board last read up to (the first: the board when the watch starts), as /api/board/changes?since= takes it.
 */
export function watchChanges<R extends { ok: boolean }>(deps: WatchDeps<R>, opts: WatchOptions = {}): AsyncGenerator<WatchEvent<R>> {
  return watchBoard({ key: (_views, snapshot) => snapshot, baseline: true }, deps, opts);
}

function watchBoard<R extends { ok: boolean }>(watched: Watched, deps: WatchDeps<R>, opts: WatchOptions): AsyncGenerator<WatchEvent<R>> {
  return deps.events && opts.via !== "poll" ? followEvents(watched, { ...deps, events: deps.events }, opts) : poll(watched, deps, opts);
}

async function* followEvents<R extends { ok: boolean }>(
  watched: Watched,
  deps: WatchDeps<R> & Required<Pick<WatchDeps<R>, "events">>,
  opts: WatchOptions,
): AsyncGenerator<WatchEvent<R>> {
  const min = opts.minIntervalMs ?? 2_000;
  const max = Math.max(min, opts.maxIntervalMs ?? 600_000);
  const backoff = (n: number) => Math.min(max, min * 2 ** Math.min(n, 8));
  let bought: string | null = null;
  let lastEventId: number | undefined;
  let failures = 0;
  /** Buys when `hash` is not the one bought; false when the buy failed. */
  async function* buyIfChanged(hash: string, freshness: { poll_hint: string; next_refresh_at: string }): AsyncGenerator<WatchEvent<R>, boolean> {
    if (hash === bought) return true;
    if (bought === null && watched.baseline) {
      bought = hash;
      return true;
    }
    const result = await deps.read(bought);
    const moveOn = result.ok || deps.settled?.(result) === true;
    if (moveOn) bought = hash;
    yield { type: "read", view_hash: hash, poll_hint: freshness.poll_hint, next_refresh_at: freshness.next_refresh_at, result };
    return moveOn;
  }
  while (!opts.signal?.aborted) {
    // What the stream cannot replay: the board now (at the start, and after a reconnection).
    const state = await deps.state();
    if (!state.ok) {
      const retry = backoff(failures++);
      yield { type: "poll_failed", error: state.error, retry_in_ms: retry };
      await sleep(retry, opts.signal);
      continue;
    }
    if (!(yield* buyIfChanged(watched.key(state.value.views, state.value.snapshot), state.value.freshness))) {
      await sleep(min, opts.signal);
      continue;
    }
    const stream = deps.events(lastEventId, opts.signal);
    let end: StreamEnd | null = null;
    let buyFailed = false;
    for (;;) {
      const next = await stream.next();
      if (next.done) {
        end = next.value;
        break;
      }
      const event = next.value;
      lastEventId = event.seq;
      failures = 0;
      const poll_hint = "next board: the next event of /api/board/events";
      if (!(yield* buyIfChanged(watched.key(event.views, event.snapshot), { poll_hint, next_refresh_at: event.next_refresh_at }))) {
        buyFailed = true;
        await stream.return(null);
        break;
      }
    }
    if (opts.signal?.aborted) return;
    if (buyFailed) {
      await sleep(min, opts.signal);
      continue;
    }
    if (end && end.error.status === 404) {
      yield { type: "polling", reason: end.error };
      yield* poll(watched, deps, opts, bought);
      return;
    }
    const retry = backoff(failures++);
    if (end) yield { type: "events_lost", error: end.error, retry_in_ms: retry };
    await sleep(retry, opts.signal);
  }
}

async function* poll<R extends { ok: boolean }>(watched: Watched, deps: WatchDeps<R>, opts: WatchOptions, alreadyBought: string | null = null): AsyncGenerator<WatchEvent<R>> {
  const min = opts.minIntervalMs ?? 2_000;
  const max = Math.max(min, opts.maxIntervalMs ?? 600_000);
  const now = deps.now ?? Date.now;
  let bought = alreadyBought;
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
    const hash = watched.key(state.value.views, state.value.snapshot);
    if (hash !== bought && bought === null && watched.baseline) bought = hash;
    else if (hash !== bought) {
      const result = await deps.read(bought);
      if (result.ok || deps.settled?.(result) === true) bought = hash;
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
