import { REFUSED_CREDENTIAL_SECONDS } from "@board/proto";
import { describe, expect, it } from "vitest";
import { RefusedCredentials } from "../../src/access/refused-credentials.js";

describe("RefusedCredentials", () => {
  it(`keeps an unknown key, licence or invalid bearer for ${REFUSED_CREDENTIAL_SECONDS} s, then asks again`, () => {
    let now = 0;
    const refused = new RefusedCredentials(() => now);
    const key = RefusedCredentials.keyOf({ board_key: "sk_x" })!;
    refused.remember(key, { code: "key_unknown", message: "unknown" });
    expect(refused.get(key)?.code).toBe("key_unknown");
    now = REFUSED_CREDENTIAL_SECONDS * 1000 - 1;
    expect(refused.get(key)).toBeDefined();
    now = REFUSED_CREDENTIAL_SECONDS * 1000;
    expect(refused.get(key)).toBeUndefined();
  });

  it("keeps no refusal that could turn into a grant (a lapsed licence, a sign-in), and no credential set of several", () => {
    const refused = new RefusedCredentials(() => 0);
    const license = RefusedCredentials.keyOf({ license_key: "lk_x" })!;
    refused.remember(license, { code: "license_lapsed", message: "lapsed" });
    expect(refused.get(license)).toBeUndefined();
    expect(RefusedCredentials.keyOf({ siwx: "abc" })).toBeNull();
    expect(RefusedCredentials.keyOf({ board_key: "a", license_key: "b" })).toBeNull();
  });

  it("a bearer is kept per resource it was refused for", () => {
    expect(RefusedCredentials.keyOf({ bearer: "t" }, "api")).not.toBe(RefusedCredentials.keyOf({ bearer: "t" }, "mcp_live"));
  });
});
