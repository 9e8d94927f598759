import { z } from "zod";
import { IsoDate, IsoDateTime } from "../records/common.js";
import { FreshnessBlock } from "../records/freshness.js";
import { CommitmentRef } from "../records/proof-views.js";
import { ViewName } from "../records/views.js";
import { busEndpoint } from "./endpoint.js";

export const ContentEncoding = z.enum(["identity", "gzip"]);
export type ContentEncoding = z.infer<typeof ContentEncoding>;

/** The longest If-None-Match a board read takes; the gateway reads a longer one unconditionally. */
export const MAX_IF_NONE_MATCH_CHARS = 512;

export const BoardReadRequest = z.object({
  view: ViewName,
  /** The route's query, already validated by the gateway against the catalogue. */
  params: z.record(z.string(), z.string()).default({}),
  encoding: ContentEncoding.default("identity"),
  if_none_match: z.string().max(MAX_IF_NONE_MATCH_CHARS).optional(),
  /** The ETag of this view (same params, same encoding) whose bytes the caller keeps: if it is current, the body is left out. */
  cached_etag: z.string().max(128).optional(),
  /**
   * A redelivery: the view as the board of this snapshot (its hash, from an earlier reply's
   * `snapshot`) rendered it, with `freshness` as it was then, so the bytes are the same.
   */
  snapshot: z.string().max(128).optional(),
  freshness: FreshnessBlock.optional(),
});
export type BoardReadRequest = z.input<typeof BoardReadRequest>;

/** Metadata of a board.v1.read reply; the body bytes follow as the message payload. */
export const BoardReadMeta = z.object({
  status: z.union([z.literal(200), z.literal(304)]),
  etag: z.string(),
  encoding: ContentEncoding,
  freshness: FreshnessBlock,
  asof_daily: IsoDate,
  computed_at: IsoDateTime,
  /**
   * With a body: where its fixed part ends (the freshness tail follows), and for gzip the
   * fixed part's CRC-32 and length, so the caller can keep the bytes and splice later reads.
   */
  template: z.object({ head_bytes: z.number().int().min(0), crc: z.number().int().min(0).optional(), size: z.number().int().min(0).optional() }).optional(),
  /** true: the caller's cached_etag is current and the body is left out; splice this freshness into the kept bytes. */
  cached: z.literal(true).optional(),
  /** The hash of the snapshot the view was cut from (absent for views of the delayed board): what a redelivery asks for again. */
  snapshot: z.string().optional(),
  /** With `snapshot`: that board's commitment in the proof chain, which a paid read's receipt names. */
  commitment: CommitmentRef.optional(),
});
export type BoardReadMeta = z.infer<typeof BoardReadMeta>;

export const boardRead = busEndpoint("board", "read", BoardReadRequest, BoardReadMeta, "bytes");

/** The JetStream stream the scanner publishes snapshots to, and its subject. */
export const SNAPSHOT_STREAM = "BOARD";
export const SNAPSHOT_SUBJECT = "board.snapshots.v1";
