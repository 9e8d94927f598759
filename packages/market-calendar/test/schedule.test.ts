import { describe, expect, it } from "vitest";
import { nextRefreshAt, runSlotsBetween } from "../src/schedule.js";

const at = (iso: string) => new Date(iso);
const iso = (dates: Date[]) => dates.map((d) => d.toISOString());

describe("nextRefreshAt", () => {
  it("goes to the next 5-minute boundary while open", () => {
    expect(nextRefreshAt(at("2026-11-23T10:02:30-05:00"))).toEqual(at("2026-11-23T10:05:00-05:00"));
    expect(nextRefreshAt(at("2026-11-23T10:00:00-05:00"))).toEqual(at("2026-11-23T10:05:00-05:00"));
    expect(nextRefreshAt(at("2026-11-23T10:04:59.999-05:00"))).toEqual(at("2026-11-23T10:05:00-05:00"));
    expect(nextRefreshAt(at("2026-11-23T09:30:00-05:00"))).toEqual(at("2026-11-23T09:35:00-05:00"));
  });

  it("never passes the close", () => {
    expect(nextRefreshAt(at("2026-11-23T15:58:00-05:00"))).toEqual(at("2026-11-23T16:00:00-05:00"));
    expect(nextRefreshAt(at("2026-11-23T15:55:00-05:00"))).toEqual(at("2026-11-23T16:00:00-05:00"));
    expect(nextRefreshAt(at("2026-11-27T12:58:00-05:00"))).toEqual(at("2026-11-27T13:00:00-05:00"));
    expect(nextRefreshAt(at("2026-11-23T15:50:00-05:00"), 30)).toEqual(at("2026-11-23T16:00:00-05:00"));
  });

  it("goes to the next open while shut", () => {
    expect(nextRefreshAt(at("2026-11-23T08:00:00-05:00"))).toEqual(at("2026-11-23T09:30:00-05:00"));
    expect(nextRefreshAt(at("2026-11-23T16:00:00-05:00"))).toEqual(at("2026-11-24T09:30:00-05:00"));
    expect(nextRefreshAt(at("2026-11-27T13:00:00-05:00"))).toEqual(at("2026-11-30T09:30:00-05:00"));
    expect(nextRefreshAt(at("2026-11-21T12:00:00-05:00"))).toEqual(at("2026-11-23T09:30:00-05:00"));
    expect(nextRefreshAt(at("2026-03-06T17:00:00-05:00"))).toEqual(at("2026-03-09T13:30:00Z"));
  });

  it("honours other cadences on the same clock grid", () => {
    expect(nextRefreshAt(at("2026-11-23T10:02:00-05:00"), 15)).toEqual(at("2026-11-23T10:15:00-05:00"));
    expect(nextRefreshAt(at("2026-11-23T10:02:00-05:00"), 1)).toEqual(at("2026-11-23T10:03:00-05:00"));
    expect(nextRefreshAt(at("2026-11-23T09:30:00-05:00"), 60)).toEqual(at("2026-11-23T10:00:00-05:00"));
    // In summer (UTC-4) the grid is still on New York minutes.
    expect(nextRefreshAt(at("2026-07-08T10:02:00-04:00"), 15)).toEqual(at("2026-07-08T10:15:00-04:00"));
  });

  it("rejects a bad cadence", () => {
    expect(() => nextRefreshAt(at("2026-11-23T10:00:00-05:00"), 0)).toThrow(RangeError);
    expect(() => nextRefreshAt(at("2026-11-23T10:00:00-05:00"), 2.5)).toThrow(RangeError);
  });
});

describe("runSlotsBetween", () => {
  it("covers a full regular day: open, every 5 minutes, close", () => {
    const slots = runSlotsBetween(at("2026-11-23T00:00:00-05:00"), at("2026-11-23T23:59:00-05:00"));
    expect(slots.length).toBe(79); // 09:30 .. 16:00
    expect(slots[0]).toEqual(at("2026-11-23T09:30:00-05:00"));
    expect(slots[1]).toEqual(at("2026-11-23T09:35:00-05:00"));
    expect(slots.at(-1)).toEqual(at("2026-11-23T16:00:00-05:00"));
  });

  it("stops at 13:00 on an early-close day", () => {
    const slots = runSlotsBetween(at("2026-11-27T00:00:00-05:00"), at("2026-11-27T23:59:00-05:00"));
    expect(slots.length).toBe(43); // 09:30 .. 13:00
    expect(slots.at(-1)).toEqual(at("2026-11-27T13:00:00-05:00"));
  });

  it("skips a weekend", () => {
    expect(iso(runSlotsBetween(at("2026-11-20T15:50:00-05:00"), at("2026-11-23T09:41:00-05:00")))).toEqual(
      iso([
        at("2026-11-20T15:55:00-05:00"),
        at("2026-11-20T16:00:00-05:00"),
        at("2026-11-23T09:30:00-05:00"),
        at("2026-11-23T09:35:00-05:00"),
        at("2026-11-23T09:40:00-05:00"),
      ]),
    );
  });

  it("skips a holiday", () => {
    expect(iso(runSlotsBetween(at("2026-11-25T15:56:00-05:00"), at("2026-11-27T09:36:00-05:00")))).toEqual(
      iso([at("2026-11-25T16:00:00-05:00"), at("2026-11-27T09:30:00-05:00"), at("2026-11-27T09:35:00-05:00")]),
    );
  });

  it("is (from, to]: excludes from, includes to", () => {
    expect(iso(runSlotsBetween(at("2026-11-23T10:00:00-05:00"), at("2026-11-23T10:10:00-05:00")))).toEqual(
      iso([at("2026-11-23T10:05:00-05:00"), at("2026-11-23T10:10:00-05:00")]),
    );
    expect(runSlotsBetween(at("2026-11-23T10:10:00-05:00"), at("2026-11-23T10:00:00-05:00"))).toEqual([]);
    expect(runSlotsBetween(at("2026-11-21T00:00:00-05:00"), at("2026-11-22T23:59:00-05:00"))).toEqual([]);
  });

  it.each([5, 7, 15])("matches repeated nextRefreshAt over holidays and a DST switch (cadence %i)", (cadence) => {
    for (const [from, to] of [
      ["2026-11-20T12:00:00-05:00", "2026-12-02T12:00:00-05:00"],
      ["2026-10-29T12:00:00-04:00", "2026-11-04T12:00:00-05:00"],
      ["2026-03-05T12:00:00-05:00", "2026-03-11T12:00:00-04:00"],
    ] as const) {
      const walked: Date[] = [];
      for (let t = nextRefreshAt(at(from), cadence); t <= at(to); t = nextRefreshAt(t, cadence)) walked.push(t);
      expect(iso(runSlotsBetween(at(from), at(to), cadence))).toEqual(iso(walked));
    }
  });
});
