import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { eip3009TokenArtifact } from "../src/evm/artifacts/EIP3009Token.js";
import { ARTIFACT_URL, renderArtifactModule } from "../src/evm/build-artifact.js";
import { compileEip3009Token } from "../src/evm/compile.js";

const STALE = "stale artifact: run `npx tsx packages/test-chains/src/evm/build-artifact.ts`";

describe("committed EIP3009Token artifact", () => {
  it("matches a fresh compile of contracts/EIP3009Token.sol", { timeout: 60_000 }, async () => {
    const started = performance.now();
    const fresh = await compileEip3009Token();
    console.info(`solc-js compile took ${(performance.now() - started).toFixed(0)} ms`);

    expect(eip3009TokenArtifact.solcVersion, STALE).toBe(fresh.solcVersion);
    expect(eip3009TokenArtifact.settings, STALE).toEqual(fresh.settings);
    expect(eip3009TokenArtifact.abi, STALE).toEqual(fresh.abi);
    // The bytecode ends with solc's CBOR metadata, whose hash covers the exact source text:
    // any edit to the .sol (comments included) shows up here.
    expect(eip3009TokenArtifact.deployedBytecode, STALE).toBe(fresh.deployedBytecode);
    expect(eip3009TokenArtifact.bytecode, STALE).toBe(fresh.bytecode);
    expect(await readFile(ARTIFACT_URL, "utf8"), STALE).toBe(renderArtifactModule(fresh));
  });
});
