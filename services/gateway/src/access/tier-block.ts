import type { DailyCount, Principal, TierBlock } from "@board/proto";
import type { ServerResponse } from "node:http";

export function tierBlock(principal: Principal, daily: DailyCount): TierBlock {
  return {
    name: principal.tier === "wallet" ? "wallet" : "free_key",
    used_today: daily.used_today,
    limit: daily.limit,
    remaining: Math.max(0, daily.limit - daily.used_today),
    reset_at: daily.reset_at,
  };
}

/**
 * Adds `"tier": {...}` to a view's JSON object. The view is pre-rendered bytes; splicing the
 * block before its closing brace costs a copy of a few KB instead of a parse and re-encode.
 */
export function withTierBlock(body: Uint8Array, block: TierBlock): Buffer {
  let end = body.length - 1;
  while (end >= 0 && (body[end] === 0x20 || body[end] === 0x0a || body[end] === 0x0d || body[end] === 0x09)) end--;
  if (end < 1 || body[end] !== 0x7d) throw new Error("view body is not a JSON object");
  let prev = end - 1;
  while (prev >= 0 && (body[prev] === 0x20 || body[prev] === 0x0a || body[prev] === 0x0d || body[prev] === 0x09)) prev--;
  const empty = body[prev] === 0x7b;
  const insert = Buffer.from(`${empty ? "" : ","}"tier":${JSON.stringify(block)}}`);
  return Buffer.concat([body.subarray(0, end), insert]);
}

/** The daily count as RateLimit headers (IETF httpapi draft names) beside the body's tier block. */
export function setDailyHeaders(res: ServerResponse, daily: DailyCount, now = Date.now()): void {
  res.setHeader("RateLimit-Limit", String(daily.limit));
  res.setHeader("RateLimit-Remaining", String(Math.max(0, daily.limit - daily.used_today)));
  res.setHeader("RateLimit-Reset", String(Math.max(0, Math.ceil((Date.parse(daily.reset_at) - now) / 1000))));
}
