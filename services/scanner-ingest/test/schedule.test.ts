import { formatNewYork } from "@board/market-calendar";
import { describe, expect, it } from "vitest";
import { catchUpSlots, nextScanAt, previousCloseSlot, slotAt } from "../src/schedule.js";

const ny = (d: Date) => formatNewYork(d);

describe("scan schedule", () => {
  it("runs every 5 minutes in market hours, at the close, and each morning before the open", () => {
    expect(ny(nextScanAt(new Date("2026-11-20T15:02:30Z"), 5))).toBe("2026-11-20T10:05:00-05:00");
    expect(ny(nextScanAt(new Date("2026-11-20T20:58:00Z"), 5))).toBe("2026-11-20T16:00:00-05:00");
    // After Friday's close the next scan is Monday's morning board, then the open.
    expect(ny(nextScanAt(new Date("2026-11-20T21:00:00Z"), 5))).toBe("2026-11-23T08:00:00-05:00");
    expect(ny(nextScanAt(new Date("2026-11-23T13:00:00Z"), 5))).toBe("2026-11-23T09:30:00-05:00");
    // Thanksgiving: no board that day; the early close on the Friday.
    expect(ny(nextScanAt(new Date("2026-11-25T22:00:00Z"), 5))).toBe("2026-11-27T08:00:00-05:00");
    expect(ny(nextScanAt(new Date("2026-11-27T17:58:00Z"), 5))).toBe("2026-11-27T13:00:00-05:00");
  });

  it("labels a slot with its trading day and whether it is intraday", () => {
    expect(slotAt(new Date("2026-11-20T15:00:00Z"))).toMatchObject({ asofDaily: "2026-11-20", intraday: true });
    expect(slotAt(new Date("2026-11-21T15:00:00Z"))).toMatchObject({ asofDaily: "2026-11-20", intraday: false });
    expect(slotAt(new Date("2026-11-23T13:00:00Z"))).toMatchObject({ asofDaily: "2026-11-20", intraday: false });
    expect(ny(previousCloseSlot(new Date("2026-11-23T15:00:00Z")).at)).toBe("2026-11-20T16:00:00-05:00");
  });

  it("on a first start publishes the previous close and the board of now", () => {
    const now = new Date("2026-11-21T18:00:00Z");
    expect(catchUpSlots(null, now, 5).map((s) => [s.asofDaily, ny(s.at)])).toEqual([
      ["2026-11-19", "2026-11-19T16:00:00-05:00"],
      ["2026-11-20", ny(now)],
    ]);
  });

  it("catches up the closing board of every missed session, then the board of now", () => {
    const last = new Date("2026-11-17T15:00:00Z"); // Tuesday 10:00 ET, then down until Friday noon
    const now = new Date("2026-11-20T17:00:00Z");
    expect(catchUpSlots(last, now, 5).map((s) => [s.asofDaily, s.intraday])).toEqual([
      ["2026-11-17", false],
      ["2026-11-18", false],
      ["2026-11-19", false],
      ["2026-11-20", true],
    ]);
  });

  it("a restart within the same slot owes only the board of now", () => {
    const now = new Date("2026-11-20T17:01:00Z");
    expect(catchUpSlots(new Date("2026-11-20T17:00:00Z"), now, 5)).toEqual([slotAt(now)]);
  });
});
