export {
  AlgodStandInError,
  startAlgodStandIn,
  type AlgodStandIn,
  type AlgodStandInAccount,
  type AlgodStandInErrorReason,
  type StartAlgodStandInOptions,
} from "./algod-stand-in.js";
export type { AcceptedGroup } from "./stand-in-ledger.js";
export type { StandInRejectionReason } from "./stand-in-rejection.js";
export {
  ALGORAND_MAINNET_GENESIS_HASH,
  ALGORAND_MAINNET_GENESIS_ID,
  ALGORAND_MAINNET_NETWORK,
  ALGORAND_MAINNET_NETWORK_FULL,
  ALGORAND_USDC_ASSET_ID,
  ALGORAND_USDC_DECIMALS,
} from "./stand-in-network.js";
