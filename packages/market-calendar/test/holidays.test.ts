import { describe, expect, it } from "vitest";
import { earlyClose, holidayName, holidaysIn } from "../src/holidays.js";
import { isTradingDay } from "../src/sessions.js";

function datesOfYear(year: number): string[] {
  const out: string[] = [];
  for (let t = Date.UTC(year, 0, 1); t < Date.UTC(year + 1, 0, 1); t += 86_400_000) {
    out.push(new Date(t).toISOString().slice(0, 10));
  }
  return out;
}

describe("holidaysIn / holidayName", () => {
  it("lists the complete 2026 NYSE holiday calendar", () => {
    expect(holidaysIn(2026)).toEqual([
      { date: "2026-01-01", name: "New Year's Day" },
      { date: "2026-01-19", name: "Martin Luther King Jr. Day" },
      { date: "2026-02-16", name: "Washington's Birthday" },
      { date: "2026-04-03", name: "Good Friday" },
      { date: "2026-05-25", name: "Memorial Day" },
      { date: "2026-06-19", name: "Juneteenth National Independence Day" },
      { date: "2026-07-03", name: "Independence Day (observed)" },
      { date: "2026-09-07", name: "Labor Day" },
      { date: "2026-11-26", name: "Thanksgiving Day" },
      { date: "2026-12-25", name: "Christmas Day" },
    ]);
  });

  it("names holidays by date and returns null otherwise", () => {
    expect(holidayName("2026-11-26")).toBe("Thanksgiving Day");
    expect(holidayName("2026-07-03")).toBe("Independence Day (observed)");
    expect(holidayName("2026-11-27")).toBeNull();
    // A Saturday holiday is reported on the Friday it is observed, not on the Saturday.
    expect(holidayName("2026-07-04")).toBeNull();
  });

  it("observes New Year's Day 2027 on Friday Jan 1", () => {
    expect(holidayName("2027-01-01")).toBe("New Year's Day");
    expect(isTradingDay("2027-01-01")).toBe(false);
  });

  it("does not move a Saturday New Year's Day (2022) to Friday Dec 31", () => {
    expect(holidayName("2021-12-31")).toBeNull();
    expect(isTradingDay("2021-12-31")).toBe(true);
    expect(earlyClose("2021-12-31")).toBe(false);
    expect(holidaysIn(2022).map((h) => h.date)).toEqual([
      "2022-01-17", "2022-02-21", "2022-04-15", "2022-05-30", "2022-06-20",
      "2022-07-04", "2022-09-05", "2022-11-24", "2022-12-26",
    ]);
  });

  it("moves a Sunday New Year's Day (2023) to Monday", () => {
    expect(holidayName("2023-01-02")).toBe("New Year's Day (observed)");
  });

  it("computes Good Friday from Easter", () => {
    expect(holidayName("2024-03-29")).toBe("Good Friday");
    expect(holidayName("2025-04-18")).toBe("Good Friday");
    expect(holidayName("2027-03-26")).toBe("Good Friday");
    expect(holidayName("2038-04-23")).toBe("Good Friday"); // Easter 2038 is April 25
    expect(holidayName("2008-03-21")).toBe("Good Friday"); // Easter 2008 is March 23
  });

  it("observes Juneteenth only from 2022, with weekend observance", () => {
    expect(holidayName("2021-06-18")).toBeNull();
    expect(holidayName("2022-06-20")).toBe("Juneteenth National Independence Day (observed)");
    expect(holidayName("2027-06-18")).toBe("Juneteenth National Independence Day (observed)");
  });

  it("moves a Saturday Christmas to Friday and a Sunday Christmas to Monday", () => {
    expect(holidayName("2021-12-24")).toBe("Christmas Day (observed)");
    expect(holidayName("2022-12-26")).toBe("Christmas Day (observed)");
  });

  it("includes special closures", () => {
    expect(holidayName("2025-01-09")).toBe("the National Day of Mourning for President Jimmy Carter");
    expect(holidayName("2018-12-05")).toBe("the National Day of Mourning for President George H. W. Bush");
    expect(holidayName("2012-10-29")).toBe("Hurricane Sandy");
    expect(holidayName("2012-10-30")).toBe("Hurricane Sandy");
    expect(holidayName("2012-10-31")).toBeNull();
  });

  it("rejects malformed dates", () => {
    expect(() => holidayName("2026-2-1")).toThrow(RangeError);
    expect(() => holidayName("2026-02-30")).toThrow(RangeError);
    expect(() => holidaysIn(2026.5)).toThrow(RangeError);
  });
});

describe("earlyClose", () => {
  it("closes early on the eve of Independence Day only when that day trades", () => {
    expect(earlyClose("2023-07-03")).toBe(true); // Monday, July 4 Tuesday
    expect(earlyClose("2024-07-03")).toBe(true); // Wednesday
    expect(earlyClose("2025-07-03")).toBe(true); // Thursday
    expect(earlyClose("2026-07-03")).toBe(false); // observed holiday (July 4 is Saturday)
    expect(earlyClose("2026-07-02")).toBe(false);
    expect(earlyClose("2020-07-02")).toBe(false);
    expect(earlyClose("2021-07-02")).toBe(false); // July 4 Sunday, observed Monday
    expect(earlyClose("2022-07-01")).toBe(false); // July 4 Monday
    expect(earlyClose("2028-07-03")).toBe(true); // Monday
  });

  it("follows the pre-2013 practice for a Thursday July 4", () => {
    expect(earlyClose("2002-07-03")).toBe(false);
    expect(earlyClose("2002-07-05")).toBe(true);
    expect(earlyClose("2013-07-03")).toBe(true);
    expect(earlyClose("2013-07-05")).toBe(false);
    expect(earlyClose("2008-07-03")).toBe(true); // Thursday, July 4 Friday
  });

  it("closes early the day after Thanksgiving", () => {
    expect(earlyClose("2026-11-27")).toBe(true);
    expect(earlyClose("2025-11-28")).toBe(true);
    expect(earlyClose("2026-11-25")).toBe(false);
  });

  it("closes early on Christmas Eve when it is a weekday trading day", () => {
    expect(earlyClose("2026-12-24")).toBe(true); // Thursday
    expect(earlyClose("2018-12-24")).toBe(true); // Monday
    expect(earlyClose("2021-12-24")).toBe(false); // observed Christmas
    expect(earlyClose("2021-12-23")).toBe(false);
    expect(earlyClose("2022-12-23")).toBe(false); // Dec 24 is a Saturday
  });

  it("is false on weekends, holidays and the special table says otherwise only on listed days", () => {
    expect(earlyClose("2026-11-28")).toBe(false);
    expect(earlyClose("2026-11-26")).toBe(false);
    expect(earlyClose("2003-12-26")).toBe(true);
  });
});

describe("whole years", () => {
  // Published NYSE trading-day counts and 13:00 closes.
  const years: [number, number, string[]][] = [
    [2019, 252, ["2019-07-03", "2019-11-29", "2019-12-24"]],
    [2020, 253, ["2020-11-27", "2020-12-24"]],
    [2021, 252, ["2021-11-26"]],
    [2022, 251, ["2022-11-25"]],
    [2023, 250, ["2023-07-03", "2023-11-24"]],
    [2024, 252, ["2024-07-03", "2024-11-29", "2024-12-24"]],
    [2025, 250, ["2025-07-03", "2025-11-28", "2025-12-24"]],
    [2026, 251, ["2026-11-27", "2026-12-24"]],
  ];
  it.each(years)("%i has %i trading days and the right early closes", (year, count, early) => {
    const days = datesOfYear(year);
    expect(days.filter(isTradingDay).length).toBe(count);
    expect(days.filter(earlyClose)).toEqual(early);
  });
});
