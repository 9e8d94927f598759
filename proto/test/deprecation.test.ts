import { describe, expect, it } from "vitest";
import { ROUTES } from "../src/routes/catalogue.js";
import { DEPRECATION_NOTICE_DAYS, deprecationHeaders, deprecationIssues, type RouteDeprecation } from "../src/routes/deprecation.js";

const base = new URL("https://board.example.org/somewhere");
const record: RouteDeprecation = { since: "2027-01-04T15:00:00Z", sunset: "2027-04-05T15:00:00Z", link: "/docs/deprecations#regime" };

describe("deprecation records", () => {
  it("become a structured-field Date, an IMF-fixdate and a Link rel=deprecation", () => {
    const h = deprecationHeaders(record, base);
    // RFC 9745: an RFC 9651 Date, "@" and the integer seconds since the epoch.
    expect(h.deprecation).toBe(`@${Date.UTC(2027, 0, 4, 15) / 1000}`);
    expect(h.deprecation).toMatch(/^@-?\d{1,15}$/);
    // RFC 8594: an HTTP-date, in its preferred IMF-fixdate form.
    expect(h.sunset).toBe("Mon, 05 Apr 2027 15:00:00 GMT");
    expect(h.sunset).toMatch(/^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/);
    // A relative notice is resolved against the origin, not the base URL's path.
    expect(h.link).toBe('<https://board.example.org/docs/deprecations#regime>; rel="deprecation"; type="text/html"');
    expect(deprecationHeaders({ ...record, link: "https://notices.example.com/x" }, base).link).toContain("<https://notices.example.com/x>");
  });

  it("keep a date with an offset to the second it names", () => {
    expect(deprecationHeaders({ ...record, since: "2027-01-04T10:00:00-05:00" }, base).deprecation).toBe(`@${Date.UTC(2027, 0, 4, 15) / 1000}`);
  });

  it("hold the notice period: 90 days on a paid route, 30 on others", () => {
    expect(deprecationIssues(record, "paid")).toEqual([]);
    const short = { ...record, sunset: "2027-03-04T15:00:00Z" };
    expect(deprecationIssues(short, "paid")).toEqual([`sunset is 59 days after deprecation; a paid route needs at least ${DEPRECATION_NOTICE_DAYS.paid}`]);
    expect(deprecationIssues(short, "free")).toEqual([]);
    expect(deprecationIssues({ ...record, sunset: "2027-01-20T15:00:00Z" }, "free")).toHaveLength(1);
    expect(deprecationIssues({ ...record, link: "http://insecure.example.com/" }, "paid")).toHaveLength(1);
    expect(deprecationIssues({ ...record, since: "4 January 2027" }, "paid")).toHaveLength(1);
  });

  it("of every catalogued route keep the policy", () => {
    for (const route of ROUTES) if (route.deprecation) expect(deprecationIssues(route.deprecation, route.kind), route.path).toEqual([]);
  });
});
