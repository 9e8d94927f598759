import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { METHODOLOGY_DOC_PATH, methodologyDocument } from "../../src/discovery/methodology.js";

describe("docs/methodology.md", () => {
  it("is generated from methodology.ts (run write-methodology.ts after editing the prose)", () => {
    const file = readFileSync(new URL(`../../../../${METHODOLOGY_DOC_PATH}`, import.meta.url), "utf8");
    expect(file).toBe(methodologyDocument());
  });
});
