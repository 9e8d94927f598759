import { FREE_DAILY_LIMIT, FREE_KEY_IDLE_DAYS, ROUTES, type FreeTierTerms } from "@board/proto";

export const BOARD_KEY_HEADER = "X-Board-Key";
const DAY_BOUNDARY = "00:00 UTC";

/**
 * The reads a free tier opens: the paid routes that also admit it. (Free reads, discovery
 * and the auth endpoints admit every tier but need no key, so listing them would only
 * mislead; the routes here are the ones the daily count applies to.)
 */
export const tierRoutes = (tier: "free_key" | "wallet"): string[] =>
  ROUTES.filter((r) => r.kind === "paid" && r.tiers.includes(tier)).map((r) => r.path);

const USAGE: Record<"free_key" | "wallet", string> = {
  free_key:
    `Send this key as ${BOARD_KEY_HEADER} on the listed routes; ${FREE_DAILY_LIMIT} reads a day are counted per email (every key issued for it shares them) and reset at ${DAY_BOUNDARY}; ` +
    `unused for ${FREE_KEY_IDLE_DAYS} days it expires, and posting the same email to POST /api/key again gives a new one.`,
  wallet:
    `Send this key as ${BOARD_KEY_HEADER} on the listed routes; ${FREE_DAILY_LIMIT} reads a day are counted per wallet address (shared with its sign-in sessions) and reset at ${DAY_BOUNDARY}; ` +
    `unused for ${FREE_KEY_IDLE_DAYS} days it expires, and signing in again at POST /api/auth/verify gives a new one.`,
};

/** What a key's holder needs to use it: limit, header, routes, reset and expiry (SPEC.md 5 and 8). */
export function freeTierTerms(tier: "free_key" | "wallet"): FreeTierTerms {
  return {
    daily_limit: FREE_DAILY_LIMIT,
    usage: USAGE[tier],
    header: BOARD_KEY_HEADER,
    routes: tierRoutes(tier),
    day_boundary: DAY_BOUNDARY,
    expires_after_idle_days: FREE_KEY_IDLE_DAYS,
  };
}
