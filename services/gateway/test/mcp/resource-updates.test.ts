import { MCP_RESOURCES, type BoardPublishedEvent } from "@board/proto";
import { describe, expect, it } from "vitest";
import { changedResources } from "../../src/mcp/resource-updates.js";

const hash = (c: string) => c.repeat(32);
const event = (seq: number, views: Record<string, string>): BoardPublishedEvent => ({
  seq,
  asof_daily: "2026-11-20",
  computed_at: "2026-11-20T09:55:00-08:00",
  snapshot: hash("ab"),
  content_hash: hash("cd"),
  commitment: hash("ef"),
  views,
  market_open: true,
  next_refresh_at: "2026-11-20T10:00:00-08:00",
});
const uris = (previous: BoardPublishedEvent | null, next: BoardPublishedEvent) => changedResources(previous, next).map((r) => r.uri);

describe("changedResources", () => {
  const day = { delayed: hash("1"), free: hash("2"), symbols: hash("3"), agent: hash("4") };

  it("the first event known: every resource its board has, and the state", () => {
    expect(uris(null, event(1, day))).toEqual(MCP_RESOURCES.map((r) => r.uri));
    expect(uris(null, event(1, { agent: hash("4") }))).toEqual(["board://state"]);
  });

  it("an intraday board (the delayed views' hashes unchanged): the state alone", () => {
    expect(uris(event(1, day), event(2, { ...day, agent: hash("5") }))).toEqual(["board://state"]);
  });

  it("a new trading day: the delayed board and the free slice, the directory if it changed, and the state", () => {
    expect(uris(event(1, day), event(2, { ...day, delayed: hash("6"), free: hash("7") }))).toEqual(["board://delayed", "board://free", "board://state"]);
    expect(uris(event(1, day), event(2, { ...day, symbols: hash("8") }))).toEqual(["board://symbols", "board://state"]);
  });
});
