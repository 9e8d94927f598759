import { gunzipSync } from "node:zlib";
import type { BoardReadMeta, Snapshot, ViewName } from "@board/proto";
import { fixtureSnapshot } from "@board/service-kit/testing";
import { buildPublication, type PublicationInput } from "../../src/publication.js";
import { readView } from "../../src/read.js";

export const snapshot = fixtureSnapshot({ asofDaily: "2026-11-20", computedAt: "2026-11-20T09:55:00-08:00", seed: 2, intraday: true });
export const delayedSnapshot = fixtureSnapshot({ asofDaily: "2026-11-19", computedAt: "2026-11-19T13:00:00-08:00", seed: 1 });

export function publicationOf(s: Snapshot = snapshot, more: Partial<PublicationInput> = {}) {
  return buildPublication({
    current: s.board,
    currentHash: "ab".repeat(32),
    snapshot: s,
    delayed: delayedSnapshot.board,
    snapshotsStored: 2,
    ...more,
  });
}

export const NOW = new Date("2026-11-20T18:00:00Z");

export type Reader = ReturnType<typeof readerOf>;

/** Reads a view as board.v1.read would answer it, decoded (gzip bodies gunzipped and checked against identity). */
export function readerOf(pub: ReturnType<typeof publicationOf>) {
  const deps = { publication: () => pub, now: () => NOW, refreshMinutes: 5 };
  const raw = (view: ViewName, params: Record<string, string> = {}, extra: { encoding?: "gzip" | "identity"; if_none_match?: string } = {}) =>
    readView(deps, { view, params, ...extra });
  const text = (view: ViewName, params: Record<string, string> = {}) => {
    const plain = raw(view, params);
    const zipped = raw(view, params, { encoding: "gzip" });
    const unzipped = gunzipSync(zipped.body);
    if (!unzipped.equals(Buffer.from(plain.body))) throw new Error(`${view}: gzip body differs from identity body`);
    if (zipped.meta.etag !== plain.meta.etag) throw new Error(`${view}: etag differs by encoding`);
    return { text: Buffer.from(plain.body).toString(), meta: plain.meta as BoardReadMeta };
  };
  const json = (view: ViewName, params: Record<string, string> = {}) => {
    const { text: t, meta } = text(view, params);
    const body = JSON.parse(t) as Record<string, unknown>;
    if (Object.keys(body).at(-1) !== "freshness") throw new Error(`${view}: freshness is not the last field`);
    return { body, meta };
  };
  return { deps, raw, text, json };
}
