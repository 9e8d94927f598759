import { DateTime } from "luxon";
import { describe, expect, it } from "vitest";
import {
  addTradingDays,
  isMarketOpen,
  isTradingDay,
  nextSession,
  nyDate,
  previousSession,
  sessionAt,
  sessionOn,
  tradingDayOf,
} from "../src/sessions.js";

const at = (iso: string) => new Date(iso);

describe("sessionOn", () => {
  it("returns a regular session in New York time", () => {
    expect(sessionOn("2026-11-23")).toEqual({
      date: "2026-11-23",
      open: at("2026-11-23T14:30:00Z"),
      close: at("2026-11-23T21:00:00Z"),
      early_close: false,
    });
  });

  it("returns a 13:00 close on an early-close day", () => {
    expect(sessionOn("2026-11-27")).toEqual({
      date: "2026-11-27",
      open: at("2026-11-27T14:30:00Z"),
      close: at("2026-11-27T18:00:00Z"),
      early_close: true,
    });
    expect(sessionOn("2026-12-24")?.close).toEqual(at("2026-12-24T18:00:00Z"));
  });

  it("follows the DST switches", () => {
    expect(sessionOn("2026-03-06")?.open).toEqual(at("2026-03-06T14:30:00Z")); // EST
    expect(sessionOn("2026-03-09")?.open).toEqual(at("2026-03-09T13:30:00Z")); // EDT from Mar 8
    expect(sessionOn("2026-10-30")?.open).toEqual(at("2026-10-30T13:30:00Z")); // EDT
    expect(sessionOn("2026-11-02")?.open).toEqual(at("2026-11-02T14:30:00Z")); // EST from Nov 1
    expect(sessionOn("2026-11-02")?.close).toEqual(at("2026-11-02T21:00:00Z"));
  });

  it("is null on weekends and holidays", () => {
    expect(sessionOn("2026-11-21")).toBeNull();
    expect(sessionOn("2026-11-22")).toBeNull();
    expect(sessionOn("2026-11-26")).toBeNull();
    expect(isTradingDay("2026-11-26")).toBe(false);
    expect(isTradingDay("2026-11-27")).toBe(true);
  });

  it("hands out fresh Dates, so mutating one does not corrupt the cache", () => {
    const s = sessionOn("2026-11-23");
    s?.open.setTime(0);
    expect(sessionOn("2026-11-23")?.open).toEqual(at("2026-11-23T14:30:00Z"));
  });
});

describe("isMarketOpen / sessionAt", () => {
  it("is open from the open inclusive to the close exclusive", () => {
    expect(isMarketOpen(at("2026-11-23T09:29:59.999-05:00"))).toBe(false);
    expect(isMarketOpen(at("2026-11-23T09:30:00-05:00"))).toBe(true);
    expect(isMarketOpen(at("2026-11-23T15:59:59.999-05:00"))).toBe(true);
    expect(isMarketOpen(at("2026-11-23T16:00:00-05:00"))).toBe(false);
  });

  it("is shut after 13:00 on an early-close day", () => {
    expect(isMarketOpen(at("2026-11-27T12:59:59-05:00"))).toBe(true);
    expect(isMarketOpen(at("2026-11-27T13:00:00-05:00"))).toBe(false);
    expect(isMarketOpen(at("2026-11-27T14:00:00-05:00"))).toBe(false);
  });

  it("is shut on weekends, holidays and before the open", () => {
    expect(isMarketOpen(at("2026-11-21T12:00:00-05:00"))).toBe(false);
    expect(isMarketOpen(at("2026-11-26T12:00:00-05:00"))).toBe(false);
    expect(isMarketOpen(at("2026-11-23T08:00:00-05:00"))).toBe(false);
  });

  it("returns the session in progress", () => {
    expect(sessionAt(at("2026-11-23T10:00:00-05:00"))?.date).toBe("2026-11-23");
    expect(sessionAt(at("2026-11-23T16:00:00-05:00"))).toBeNull();
  });
});

describe("nextSession / previousSession", () => {
  it("next is the same day before the open and the next day from the open on", () => {
    expect(nextSession(at("2026-11-23T08:00:00-05:00")).date).toBe("2026-11-23");
    expect(nextSession(at("2026-11-23T09:30:00-05:00")).date).toBe("2026-11-24");
    expect(nextSession(at("2026-11-23T16:00:00-05:00")).date).toBe("2026-11-24");
  });

  it("skips weekends and holidays", () => {
    expect(nextSession(at("2026-11-25T17:00:00-05:00")).date).toBe("2026-11-27");
    expect(nextSession(at("2026-11-27T13:00:00-05:00")).open).toEqual(at("2026-11-30T14:30:00Z"));
    expect(nextSession(at("2026-07-02T17:00:00-04:00")).date).toBe("2026-07-06");
  });

  it("crosses a DST weekend", () => {
    expect(nextSession(at("2026-03-06T17:00:00-05:00")).open).toEqual(at("2026-03-09T13:30:00Z"));
    expect(nextSession(at("2026-10-30T17:00:00-04:00")).open).toEqual(at("2026-11-02T14:30:00Z"));
  });

  it("previous is the latest session closed at or before the instant", () => {
    expect(previousSession(at("2026-11-23T16:00:00-05:00")).date).toBe("2026-11-23");
    expect(previousSession(at("2026-11-23T15:59:59-05:00")).date).toBe("2026-11-20");
    expect(previousSession(at("2026-11-23T08:00:00-05:00")).date).toBe("2026-11-20");
    expect(previousSession(at("2026-11-27T08:00:00-05:00")).date).toBe("2026-11-25");
  });
});

describe("tradingDayOf", () => {
  it("assigns a scan before the open to the previous session", () => {
    expect(tradingDayOf(at("2026-11-23T08:00:00-05:00"))).toBe("2026-11-20"); // Monday pre-open
    expect(tradingDayOf(at("2026-11-24T09:29:59-05:00"))).toBe("2026-11-23");
  });

  it("assigns from the open on, through the evening, to that day", () => {
    expect(tradingDayOf(at("2026-11-24T09:30:00-05:00"))).toBe("2026-11-24");
    expect(tradingDayOf(at("2026-11-24T23:59:00-05:00"))).toBe("2026-11-24");
  });

  it("assigns weekends and holidays to the last session", () => {
    expect(tradingDayOf(at("2026-11-21T12:00:00-05:00"))).toBe("2026-11-20"); // Saturday
    expect(tradingDayOf(at("2026-11-26T12:00:00-05:00"))).toBe("2026-11-25"); // Thanksgiving
  });
});

describe("addTradingDays", () => {
  it("steps over weekends and holidays both ways", () => {
    expect(addTradingDays("2026-11-25", 1)).toBe("2026-11-27");
    expect(addTradingDays("2026-11-27", 1)).toBe("2026-11-30");
    expect(addTradingDays("2026-11-27", -1)).toBe("2026-11-25");
    expect(addTradingDays("2026-11-20", 5)).toBe("2026-11-30");
    expect(addTradingDays("2026-11-30", -5)).toBe("2026-11-20");
    expect(addTradingDays("2026-12-31", 1)).toBe("2027-01-04");
  });

  it("starts from a non-trading day and keeps n = 0 as is", () => {
    expect(addTradingDays("2026-11-21", 1)).toBe("2026-11-23");
    expect(addTradingDays("2026-11-21", -1)).toBe("2026-11-20");
    expect(addTradingDays("2026-11-21", 0)).toBe("2026-11-21");
    expect(addTradingDays("2026-11-23", 0)).toBe("2026-11-23");
  });

  it("walks a whole year: 2026 has 251 sessions", () => {
    expect(addTradingDays("2025-12-31", 251)).toBe("2026-12-31");
    expect(addTradingDays("2026-12-31", -250)).toBe("2026-01-02");
  });

  it("rejects bad input", () => {
    expect(() => addTradingDays("2026-11-23", 1.5)).toThrow(RangeError);
    expect(() => addTradingDays("23/11/2026", 1)).toThrow(RangeError);
  });
});

describe("nyDate", () => {
  it("switches date at New York midnight, winter and summer", () => {
    expect(nyDate(at("2026-11-24T04:59:59.999Z"))).toBe("2026-11-23");
    expect(nyDate(at("2026-11-24T05:00:00Z"))).toBe("2026-11-24");
    expect(nyDate(at("2026-07-01T03:59:59.999Z"))).toBe("2026-06-30");
    expect(nyDate(at("2026-07-01T04:00:00Z"))).toBe("2026-07-01");
  });

  it("agrees with luxon around both DST switches", () => {
    for (const start of ["2026-03-06T00:00:00Z", "2026-10-30T00:00:00Z", "2027-03-12T00:00:00Z"]) {
      const t0 = Date.parse(start);
      for (let t = t0; t < t0 + 5 * 86_400_000; t += 7 * 60_000 + 13_000) {
        expect(nyDate(new Date(t))).toBe(DateTime.fromMillis(t, { zone: "America/New_York" }).toISODate());
      }
    }
  });

  it("rejects an invalid Date", () => {
    expect(() => nyDate(new Date("nope"))).toThrow(RangeError);
    expect(() => isMarketOpen(new Date(Number.NaN))).toThrow(RangeError);
  });
});
