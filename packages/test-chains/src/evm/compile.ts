import { readFile } from "node:fs/promises";
import type { Abi, Hex } from "viem";

/**
 * Compiles contracts/EIP3009Token.sol with the `solc` npm package (solc-js, the compiler is
 * bundled as WebAssembly: nothing is downloaded). Used by build-artifact.ts to write the
 * committed artifact and by the test that checks that artifact is current; chain.ts uses the
 * committed artifact, so starting a chain never runs the compiler.
 */

export const EIP3009_TOKEN_SOURCE_NAME = "EIP3009Token.sol";
export const EIP3009_TOKEN_CONTRACT_NAME = "EIP3009Token";

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

let cached: Promise<CompiledContract> | undefined;

/** Compiles once per process (solc-js takes a second or two); later calls share the result. */
export function compileEip3009Token(): Promise<CompiledContract> {
  cached ??= compile().catch((error: unknown) => {
    cached = undefined;
    throw error;
  });
  return cached;
}

async function compile(): Promise<CompiledContract> {
  const source = await readFile(new URL(`./contracts/${EIP3009_TOKEN_SOURCE_NAME}`, import.meta.url), "utf8");
  const solc = (await import("solc")).default as SolcModule;
  const input = {
    language: "Solidity",
    sources: { [EIP3009_TOKEN_SOURCE_NAME]: { content: source } },
    settings: {
      ...SOLC_SETTINGS,
      outputSelection: { "*": { "*": ["abi", "evm.bytecode.object", "evm.deployedBytecode.object"] } },
    },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as SolcOutput;

  // Warnings fail too: the contract is small enough to keep warning-free.
  const problems = output.errors ?? [];
  if (problems.length > 0) {
    const text = problems.map((e) => e.formattedMessage ?? `${e.severity}: ${e.message}`).join("\n");
    throw new Error(`solc ${solc.version()} reported problems compiling ${EIP3009_TOKEN_SOURCE_NAME}:\n${text}`);
  }

  const contract = output.contracts?.[EIP3009_TOKEN_SOURCE_NAME]?.[EIP3009_TOKEN_CONTRACT_NAME];
  const abi = contract?.abi;
  const bytecode = contract?.evm?.bytecode?.object;
  const deployedBytecode = contract?.evm?.deployedBytecode?.object;
  if (abi === undefined || !bytecode || !deployedBytecode) {
    throw new Error(`solc output has no abi/bytecode for ${EIP3009_TOKEN_SOURCE_NAME}:${EIP3009_TOKEN_CONTRACT_NAME}`);
  }
  return {
    contractName: EIP3009_TOKEN_CONTRACT_NAME,
    sourceName: EIP3009_TOKEN_SOURCE_NAME,
    solcVersion: solc.version(),
    settings: SOLC_SETTINGS,
    abi,
    bytecode: `0x${bytecode}`,
    deployedBytecode: `0x${deployedBytecode}`,
  };
}
