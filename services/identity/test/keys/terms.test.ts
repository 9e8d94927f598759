import { FreeTierTerms, FREE_DAILY_LIMIT, FREE_KEY_IDLE_DAYS } from "@board/proto";
import { describe, expect, it } from "vitest";
import { freeTierTerms } from "../../src/keys/terms.js";

describe("free tier terms", () => {
  it("list the paid routes the free tiers may read, and nothing else", () => {
    const expected = ["/api/board/regime", "/api/board/indices", "/api/board/movers", "/api/board/crypto", "/api/board/crypto/night", "/api/board/tradfi-risk", "/api/board/hold"];
    for (const tier of ["free_key", "wallet"] as const) {
      const terms = FreeTierTerms.parse(freeTierTerms(tier));
      expect([...terms.routes].sort()).toEqual([...expected].sort());
      expect(terms).toMatchObject({ daily_limit: FREE_DAILY_LIMIT, header: "X-Board-Key", day_boundary: "00:00 UTC", expires_after_idle_days: FREE_KEY_IDLE_DAYS });
      expect(terms.usage).toContain("X-Board-Key");
      expect(terms.usage).toContain("25 reads a day");
      expect(terms.usage).toContain("00:00 UTC");
      expect(terms.usage).toContain("90 days");
    }
    expect(freeTierTerms("free_key").usage).toContain("POST /api/key");
    expect(freeTierTerms("wallet").usage).toContain("/api/auth/verify");
  });
});
