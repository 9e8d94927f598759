import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { eip3009TokenArtifact } from "../src/evm/artifacts/EIP3009Token.js";
import { eip5267TokenArtifact } from "../src/evm/artifacts/EIP5267Token.js";
import { multicall3Artifact } from "../src/evm/artifacts/Multicall3.js";
import { ARTIFACTS, renderArtifactModule } from "../src/evm/build-artifact.js";
import { compileContract, type CompiledContract } from "../src/evm/compile.js";

const STALE = "stale artifact: run `npx tsx packages/test-chains/src/evm/build-artifact.ts`";

const committed: Record<string, CompiledContract> = {
  eip3009TokenArtifact,
  eip5267TokenArtifact,
  multicall3Artifact,
};

describe("committed contract artifacts", () => {
  it("cover every contract build-artifact.ts generates", () => {
    expect(ARTIFACTS.map((a) => a.exportName).sort()).toEqual(Object.keys(committed).sort());
  });

  for (const { contract, url, exportName } of ARTIFACTS) {
    it(`${exportName} matches a fresh compile of contracts/${contract.sourceName}`, { timeout: 60_000 }, async () => {
      const started = performance.now();
      const fresh = await compileContract(contract);
      console.info(`solc-js compile of ${contract.sourceName} took ${(performance.now() - started).toFixed(0)} ms`);

      const artifact = committed[exportName];
      expect(artifact, `no committed artifact named ${exportName}`).toBeDefined();
      expect(artifact?.contractName, STALE).toBe(fresh.contractName);
      expect(artifact?.solcVersion, STALE).toBe(fresh.solcVersion);
      expect(artifact?.settings, STALE).toEqual(fresh.settings);
      expect(artifact?.abi, STALE).toEqual(fresh.abi);
      // The bytecode ends with solc's CBOR metadata, whose hash covers the exact source text:
      // any edit to the .sol (comments included) shows up here.
      expect(artifact?.deployedBytecode, STALE).toBe(fresh.deployedBytecode);
      expect(artifact?.bytecode, STALE).toBe(fresh.bytecode);
      expect(await readFile(url, "utf8"), STALE).toBe(renderArtifactModule(fresh, exportName));
    });
  }
});
