export {
  SOLANA_MAINNET_NETWORK,
  SOLANA_USDC_DECIMALS,
  SOLANA_USDC_MINT,
  SvmChainError,
  startSvmChain,
  type StartSvmChainOptions,
  type SvmChain,
  type SvmChainErrorReason,
} from "./chain.js";
export type { SvmKeypair } from "./keys.js";
export { MAINNET_GENESIS_HASH } from "./rpc.js";
