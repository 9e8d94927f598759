import { describe, expect, it } from "vitest";
import { freshnessAt, freshnessHeaders } from "../src/freshness.js";

const at = (iso: string) => new Date(iso);

describe("freshnessAt", () => {
  it("describes an open market exactly", () => {
    expect(freshnessAt(at("2026-11-23T10:02:30-05:00"), at("2026-11-23T10:00:00-05:00"))).toEqual({
      market_open: true,
      data_age_seconds: 150,
      next_refresh_at: "2026-11-23T10:05:00-05:00",
      poll_hint:
        "The market is open and the board refreshes about every 5 minutes: poll /api/board/state and buy again only after next_refresh_at (2026-11-23T10:05:00-05:00).",
    });
  });

  it("returns exactly the four fields", () => {
    const block = freshnessAt(at("2026-11-23T10:02:30-05:00"), at("2026-11-23T10:00:00-05:00"));
    expect(Object.keys(block).sort()).toEqual(["data_age_seconds", "market_open", "next_refresh_at", "poll_hint"]);
  });

  it("is shut after the 13:00 early close until Monday's morning board", () => {
    expect(freshnessAt(at("2026-11-27T13:30:00-05:00"), at("2026-11-27T13:00:00-05:00"))).toEqual({
      market_open: false,
      data_age_seconds: 1800,
      next_refresh_at: "2026-11-30T08:00:00-05:00",
      poll_hint:
        "The market closed early today (1:00 pm ET); the next board is the morning board at next_refresh_at (2026-11-30T08:00:00-05:00), 90 minutes before the open, so do not buy again before then.",
    });
    // 12:58 on the same day: still open, next refresh is the 13:00 close.
    const before = freshnessAt(at("2026-11-27T12:58:00-05:00"), at("2026-11-27T12:55:00-05:00"));
    expect(before.market_open).toBe(true);
    expect(before.next_refresh_at).toBe("2026-11-27T13:00:00-05:00");
  });

  it("names the holiday", () => {
    const block = freshnessAt(at("2026-11-26T12:00:00-05:00"), at("2026-11-25T16:00:00-05:00"));
    expect(block.market_open).toBe(false);
    expect(block.next_refresh_at).toBe("2026-11-27T08:00:00-05:00");
    expect(block.poll_hint).toBe(
      "The market is closed for Thanksgiving Day; the next board is the morning board at next_refresh_at (2026-11-27T08:00:00-05:00), 90 minutes before the open, so do not buy again before then.",
    );
    expect(block.data_age_seconds).toBe(20 * 3600);
  });

  it("says weekend on a weekend", () => {
    const block = freshnessAt(at("2026-11-21T12:00:00-05:00"), at("2026-11-20T16:00:00-05:00"));
    expect(block.market_open).toBe(false);
    expect(block.next_refresh_at).toBe("2026-11-23T08:00:00-05:00");
    expect(block.poll_hint).toMatch(/^The market is closed for the weekend; the next board is the morning board /);
  });

  it("handles pre-open and after-close on a trading day", () => {
    // Before the morning board (08:00 ET), it is next; from it on, the open is.
    const early = freshnessAt(at("2026-11-23T07:59:59-05:00"), at("2026-11-20T16:00:00-05:00"));
    expect(early.next_refresh_at).toBe("2026-11-23T08:00:00-05:00");
    expect(early.poll_hint).toMatch(/^The market has not opened yet today; the next board is the morning board /);
    const pre = freshnessAt(at("2026-11-23T08:00:00-05:00"), at("2026-11-23T08:00:00-05:00"));
    expect(pre.market_open).toBe(false);
    expect(pre.next_refresh_at).toBe("2026-11-23T09:30:00-05:00");
    expect(pre.poll_hint).toMatch(/^The market has not opened yet today, so the board does not change /);

    const after = freshnessAt(at("2026-11-23T17:00:00-05:00"), at("2026-11-23T16:00:00-05:00"));
    expect(after.market_open).toBe(false);
    expect(after.next_refresh_at).toBe("2026-11-24T08:00:00-05:00");
    expect(after.poll_hint).toMatch(/^The market has closed for the day; the next board is the morning board /);
  });

  it("is open exactly at the open and shut exactly at the close", () => {
    const open = freshnessAt(at("2026-11-23T09:30:00-05:00"), at("2026-11-23T09:30:00-05:00"));
    expect(open.market_open).toBe(true);
    expect(open.next_refresh_at).toBe("2026-11-23T09:35:00-05:00");
    const close = freshnessAt(at("2026-11-23T16:00:00-05:00"), at("2026-11-23T16:00:00-05:00"));
    expect(close.market_open).toBe(false);
    expect(close.next_refresh_at).toBe("2026-11-24T08:00:00-05:00");
  });

  it("reports the next open with the right offset across both DST weekends", () => {
    // Spring forward on Sunday 2026-03-08: Friday in EST, Monday's open in EDT.
    expect(freshnessAt(at("2026-03-06T17:00:00-05:00"), at("2026-03-06T16:00:00-05:00")).next_refresh_at).toBe(
      "2026-03-09T08:00:00-04:00",
    );
    expect(freshnessAt(at("2026-03-08T12:00:00-04:00"), at("2026-03-06T16:00:00-05:00")).next_refresh_at).toBe(
      "2026-03-09T08:00:00-04:00",
    );
    // Fall back on Sunday 2026-11-01: Friday in EDT, Monday's open in EST.
    const fall = freshnessAt(at("2026-10-30T17:00:00-04:00"), at("2026-10-30T16:00:00-04:00"));
    expect(fall.next_refresh_at).toBe("2026-11-02T08:00:00-05:00");
    expect(fall.data_age_seconds).toBe(3600);
    // Across the repeated 01:00 hour the age is still real elapsed time.
    expect(freshnessAt(at("2026-11-01T01:30:00-05:00"), at("2026-11-01T01:30:00-04:00")).data_age_seconds).toBe(3600);
  });

  it("never reports a negative age and truncates to whole seconds", () => {
    expect(freshnessAt(at("2026-11-23T10:00:00-05:00"), at("2026-11-23T10:00:05-05:00")).data_age_seconds).toBe(0);
    expect(freshnessAt(at("2026-11-23T10:00:01.999-05:00"), at("2026-11-23T10:00:00-05:00")).data_age_seconds).toBe(1);
  });

  it("words a one-minute cadence naturally", () => {
    expect(freshnessAt(at("2026-11-23T10:02:30-05:00"), at("2026-11-23T10:02:00-05:00"), 1).poll_hint).toBe(
      "The market is open and the board refreshes about every minute: poll /api/board/state and buy again only after next_refresh_at (2026-11-23T10:03:00-05:00).",
    );
  });

  it("rejects invalid dates", () => {
    expect(() => freshnessAt(new Date("x"), new Date())).toThrow(RangeError);
    expect(() => freshnessAt(new Date(), new Date("x"))).toThrow(RangeError);
  });
});

describe("the board's data delay", () => {
  const now = at("2026-11-23T10:02:30-05:00");
  const computed = at("2026-11-23T10:00:00-05:00");

  it("is absent when the board does not say it, and the hint unchanged", () => {
    const block = freshnessAt(now, computed);
    expect("data_delay" in block).toBe(false);
    expect(freshnessHeaders(block)).not.toHaveProperty("X-Board-Data-Delay");
  });

  it("rides in the block and its header; a delayed, end-of-day or recorded board's hint says what it means", () => {
    const plain = freshnessAt(now, computed).poll_hint;
    for (const delay of ["real_time", "simulated"] as const) {
      const block = freshnessAt(now, computed, 5, delay);
      expect(block.data_delay).toBe(delay);
      expect(block.poll_hint).toBe(plain);
      expect(freshnessHeaders(block)["X-Board-Data-Delay"]).toBe(delay);
    }
    expect(freshnessAt(now, computed, 5, "delayed_15m").poll_hint).toBe(
      `${plain} Prices come from a 15-minute delayed feed: the board is 15 minutes older than data_age_seconds says.`,
    );
    expect(freshnessAt(now, computed, 5, "end_of_day").poll_hint).toContain("end-of-day bars");
    expect(freshnessAt(now, computed, 5, "recorded").poll_hint).toContain("recorded vendor responses replayed");
  });
});

describe("freshnessHeaders", () => {
  it("renders the block as header strings", () => {
    const open = freshnessAt(at("2026-11-23T10:02:30-05:00"), at("2026-11-23T10:00:00-05:00"));
    expect(freshnessHeaders(open)).toEqual({
      "X-Board-Market-Open": "true",
      "X-Board-Next-Refresh": "2026-11-23T10:05:00-05:00",
      "X-Board-Data-Age": "150",
    });
    const shut = freshnessAt(at("2026-11-27T13:30:00-05:00"), at("2026-11-27T13:30:00-05:00"));
    expect(freshnessHeaders(shut)).toEqual({
      "X-Board-Market-Open": "false",
      "X-Board-Next-Refresh": "2026-11-30T08:00:00-05:00",
      "X-Board-Data-Age": "0",
    });
  });
});
