import { describe, expect, it } from "vitest";
import { formatNewYork, formatPacific } from "../src/time.js";

describe("formatNewYork / formatPacific", () => {
  it("formats with the zone offset in winter and summer", () => {
    expect(formatNewYork(new Date("2026-11-23T14:30:00Z"))).toBe("2026-11-23T09:30:00-05:00");
    expect(formatNewYork(new Date("2026-07-08T13:30:00Z"))).toBe("2026-07-08T09:30:00-04:00");
    expect(formatPacific(new Date("2026-11-23T14:30:00Z"))).toBe("2026-11-23T06:30:00-08:00");
    expect(formatPacific(new Date("2026-07-08T13:30:00Z"))).toBe("2026-07-08T06:30:00-07:00");
  });

  it("drops milliseconds without rounding up", () => {
    expect(formatNewYork(new Date("2026-11-23T14:30:59.999Z"))).toBe("2026-11-23T09:30:59-05:00");
  });

  it("shows the local date, which can differ from the UTC date", () => {
    expect(formatNewYork(new Date("2026-11-24T03:00:00Z"))).toBe("2026-11-23T22:00:00-05:00");
    expect(formatPacific(new Date("2026-11-24T03:00:00Z"))).toBe("2026-11-23T19:00:00-08:00");
  });

  it("rejects an invalid Date", () => {
    expect(() => formatNewYork(new Date("x"))).toThrow(RangeError);
  });
});
