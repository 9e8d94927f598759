export {
  BASE_CHAIN_ID,
  BASE_USDC_ADDRESS,
  MULTICALL3_ADDRESS,
  USDC_EIP712_NAME,
  USDC_EIP712_VERSION,
  eip3009TokenAbi,
  multicall3Abi,
  startEvmChain,
  type EvmChain,
  type StartEvmChainOptions,
} from "./chain.js";
export { anvilBinary, startAnvilChain } from "./anvil.js";
export { eip3009TokenArtifact } from "./artifacts/EIP3009Token.js";
export { eip5267TokenArtifact } from "./artifacts/EIP5267Token.js";
export { multicall3Artifact } from "./artifacts/Multicall3.js";
