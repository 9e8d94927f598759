import { z } from "zod";

/**
 * A route's deprecation record (docs/versioning.md, "Deprecation"): when it was deprecated,
 * when it stops answering, and where the notice is. The gateway turns it into the Deprecation
 * (RFC 9745), Sunset (RFC 8594) and Link rel="deprecation" headers of every answer of the route;
 * OpenAPI marks its operations deprecated and /llms.txt lists it.
 */
export const RouteDeprecation = z.object({
  /** The instant the route was deprecated (RFC 3339). */
  since: z.iso.datetime({ offset: true }),
  /** The instant after which the route may stop answering (RFC 3339). */
  sunset: z.iso.datetime({ offset: true }),
  /** The notice: a path on this host (resolved against the public base URL) or an absolute https URL. */
  link: z.string().refine((s) => s.startsWith("/") || s.startsWith("https://"), { message: "a path on this host or an https URL" }),
});
export type RouteDeprecation = z.infer<typeof RouteDeprecation>;

/** The least notice between Deprecation and Sunset: paid routes (buyers may hold scripts and balances for them), and the rest. */
export const DEPRECATION_NOTICE_DAYS = { paid: 90, other: 30 } as const;

const DAY_MS = 86_400_000;

/** Why a deprecation record breaks the policy (empty: it keeps it). */
export function deprecationIssues(deprecation: RouteDeprecation, kind: string): string[] {
  const parsed = RouteDeprecation.safeParse(deprecation);
  if (!parsed.success) return parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
  const days = kind === "paid" ? DEPRECATION_NOTICE_DAYS.paid : DEPRECATION_NOTICE_DAYS.other;
  const notice = Date.parse(deprecation.sunset) - Date.parse(deprecation.since);
  return notice < days * DAY_MS ? [`sunset is ${Math.floor(notice / DAY_MS)} days after deprecation; a ${kind} route needs at least ${days}`] : [];
}

/** The header names the record becomes (Link is shared with other uses, so it is appended to, never replaced). */
export const DEPRECATION_HEADER = "Deprecation";
export const SUNSET_HEADER = "Sunset";

/**
 * The record as response headers: Deprecation as an RFC 9651 structured-field Date
 * (`@<unix seconds>`, RFC 9745), Sunset as an HTTP-date (RFC 8594, IMF-fixdate), and the Link
 * to the notice with rel="deprecation" (RFC 9745 section 3).
 */
export function deprecationHeaders(deprecation: RouteDeprecation, base: URL): { deprecation: string; sunset: string; link: string } {
  const seconds = Math.floor(Date.parse(deprecation.since) / 1000);
  const notice = new URL(deprecation.link, base.origin).toString();
  return {
    deprecation: `@${seconds}`,
    sunset: new Date(deprecation.sunset).toUTCString(),
    link: `<${notice}>; rel="deprecation"; type="text/html"`,
  };
}
