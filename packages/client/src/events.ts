// The board's event stream, GET /api/board/events (SPEC.md; docs/decisions.md "event stream"):
// one Server-Sent Event per published board, its id the commitment's seq and its data the
// board's /api/board/state hashes. Read with fetch, so it runs wherever the client does.

import { BOARD_EVENTS_PATH, BoardPublishedEvent } from "@board/proto";
import { errorFromResponse, fail, type ClientError } from "./errors.js";
import type { Http } from "./http.js";

/** The gateway sends a heartbeat every 15 s: a stream silent for this long is dead, whatever TCP says. */
export const SILENT_STREAM_MS = 45_000;

export type StreamEnd = { ok: false; error: ClientError };

/**
 * The published boards from the stream, from after `lastEventId` when given (the gateway
 * replays what it still holds). Ends (returns an error) when the stream is refused, ends, goes
 * silent or carries an event that is not the documented shape; stops quietly on `signal`.
 */
export async function* boardEvents(http: Http, opts: { lastEventId?: number; signal?: AbortSignal; silentMs?: number } = {}): AsyncGenerator<BoardPublishedEvent, StreamEnd | null> {
  const connection = new AbortController();
  const stop = () => connection.abort();
  opts.signal?.addEventListener("abort", stop, { once: true });
  let silence: NodeJS.Timeout | undefined;
  let silent = false;
  const heard = () => {
    clearTimeout(silence);
    silence = setTimeout(() => {
      silent = true;
      connection.abort();
    }, opts.silentMs ?? SILENT_STREAM_MS);
  };
  const url = http.url(BOARD_EVENTS_PATH);
  try {
    heard();
    const headers: Record<string, string> = { accept: "text/event-stream" };
    if (opts.lastEventId !== undefined) headers["last-event-id"] = String(opts.lastEventId);
    const sent = await http.send(url, { headers, signal: connection.signal });
    if (!sent.ok) return opts.signal?.aborted ? null : sent;
    const res = sent.value;
    if (!res.ok) return { ok: false, error: await errorFromResponse(res) };
    if (!res.body || !/^text\/event-stream\b/i.test(res.headers.get("content-type") ?? "")) return fail("invalid_response", `${url} is not an event stream`, { status: res.status });
    let data: string[] = [];
    let buffered = "";
    const decoder = new TextDecoder();
    for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
      heard();
      buffered += decoder.decode(chunk, { stream: true });
      let newline: number;
      while ((newline = buffered.search(/\r\n|\r|\n/)) >= 0) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + (buffered.startsWith("\r\n", newline) ? 2 : 1));
        if (line === "") {
          // A blank line ends an event; comments (heartbeats) and retry lines leave no data.
          if (data.length > 0) {
            const parsed = BoardPublishedEvent.safeParse(safeJson(data.join("\n")));
            data = [];
            if (!parsed.success) return fail("invalid_response", `${url} sent an event that is not a published board`);
            yield parsed.data;
          }
        } else if (line.startsWith("data:")) data.push(line.slice(line.startsWith("data: ") ? 6 : 5));
      }
    }
    return fail("network_error", `${url}: the stream ended`);
  } catch (err) {
    if (opts.signal?.aborted) return null;
    if (silent) return fail("network_error", `${url}: nothing heard for ${Math.round((opts.silentMs ?? SILENT_STREAM_MS) / 1000)} s`);
    return fail("network_error", `${url}: ${err instanceof Error ? err.message : String(err)}`);
  } finally {
    clearTimeout(silence);
    opts.signal?.removeEventListener("abort", stop);
    connection.abort();
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
