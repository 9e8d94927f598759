import { readFile } from "node:fs/promises";
import type { Abi, Hex } from "viem";

/**
 * Compiles the contracts in contracts/ with the `solc` npm package (solc-js, the compiler is
 * bundled as WebAssembly: nothing is downloaded). Used by build-artifact.ts to write the
 * committed artifacts and by the test that checks those artifacts are current; chain.ts uses
 * the committed artifacts, so starting a chain never runs the compiler.
 */

/** A contract to compile: contracts/<sourceName>, contract <contractName> in it. */
export interface ContractSource {
  sourceName: string;
  contractName: string;
}

export const EIP3009_TOKEN: ContractSource = { sourceName: "EIP3009Token.sol", contractName: "EIP3009Token" };
export const EIP5267_TOKEN: ContractSource = { sourceName: "EIP3009Token.sol", contractName: "EIP5267Token" };
export const MULTICALL3: ContractSource = { sourceName: "Multicall3.sol", contractName: "Multicall3" };

/** Cancun bytecode runs on EDR's default hardfork (Osaka) and on Base. */
export const SOLC_SETTINGS = {
  optimizer: { enabled: true, runs: 200 },
  evmVersion: "cancun",
} as const;

export interface CompiledContract {
  contractName: string;
  sourceName: string;
  solcVersion: string;
  settings: typeof SOLC_SETTINGS;
  abi: Abi;
  /** Creation code (constructor included). */
  bytecode: Hex;
  /** Runtime code, as placed at an address with hardhat_setCode. */
  deployedBytecode: Hex;
}

interface SolcModule {
  version(): string;
  compile(input: string): string;
}

interface SolcOutputContract {
  abi?: Abi;
  evm?: { bytecode?: { object?: string }; deployedBytecode?: { object?: string } };
}

interface SolcOutput {
  errors?: { severity: string; formattedMessage?: string; message: string }[];
  contracts?: Record<string, Record<string, SolcOutputContract>>;
}

const cache = new Map<string, Promise<CompiledContract>>();

/** Compiles once per contract and process (solc-js takes a second or two); later calls share the result. */
export function compileContract(contract: ContractSource): Promise<CompiledContract> {
  const key = `${contract.sourceName}:${contract.contractName}`;
  let compiled = cache.get(key);
  if (compiled === undefined) {
    compiled = compile(contract).catch((error: unknown) => {
      cache.delete(key);
      throw error;
    });
    cache.set(key, compiled);
  }
  return compiled;
}

async function compile({ sourceName, contractName }: ContractSource): Promise<CompiledContract> {
  const source = await readFile(new URL(`./contracts/${sourceName}`, import.meta.url), "utf8");
  const solc = (await import("solc")).default as SolcModule;
  const input = {
    language: "Solidity",
    sources: { [sourceName]: { content: source } },
    settings: {
      ...SOLC_SETTINGS,
      outputSelection: { "*": { "*": ["abi", "evm.bytecode.object", "evm.deployedBytecode.object"] } },
    },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as SolcOutput;

  // Warnings fail too: the contracts are small enough to keep warning-free.
  const problems = output.errors ?? [];
  if (problems.length > 0) {
    const text = problems.map((e) => e.formattedMessage ?? `${e.severity}: ${e.message}`).join("\n");
    throw new Error(`solc ${solc.version()} reported problems compiling ${sourceName}:\n${text}`);
  }

  const contract = output.contracts?.[sourceName]?.[contractName];
  const abi = contract?.abi;
  const bytecode = contract?.evm?.bytecode?.object;
  const deployedBytecode = contract?.evm?.deployedBytecode?.object;
  if (abi === undefined || !bytecode || !deployedBytecode) {
    throw new Error(`solc output has no abi/bytecode for ${sourceName}:${contractName}`);
  }
  return {
    contractName,
    sourceName,
    solcVersion: solc.version(),
    settings: SOLC_SETTINGS,
    abi,
    bytecode: `0x${bytecode}`,
    deployedBytecode: `0x${deployedBytecode}`,
  };
}
