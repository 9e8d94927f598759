// @board/client for browsers (and any runtime without node: modules): the whole client, with
// receipts kept in memory or localStorage. The Node entry (index.ts) adds the receipts file and
// the development wallets file.
//
// Each rail's SDK loads only when createPayer makes a payer of that rail.

export { BoardClient, type BoardClientOptions, type PaidReadSettlement, type ReadResult } from "./client.js";
export { balanceOf, type Balance } from "./balance.js";
export { type Credential } from "./credentials.js";
export { ClientErrorCode, type ClientError, type ErrorReason, type Result } from "./errors.js";
export { createPayer, devWalletConfig, type RailConfig } from "./pay/index.js";
export { RAILS, type Payer, type PayOutcome, type Quote, type Rail, type Settlement } from "./pay/types.js";
export {
  localStorageReceipts,
  memoryReceipts,
  Receipt,
  ReceiptLog,
  type KeyValueStorage,
  type ReceiptStore,
} from "./receipts.js";
export { READS, type BodyOf, type Query, type ReadPath } from "./routes.js";
export { SIGN_IN_CHAINS, type SignInSession, type WalletSigner } from "./sign-in.js";
export { baseUnits, formatUsdc, SpendCap, type BaseUnits } from "./spend-cap.js";
export { type WatchEvent, type WatchOptions } from "./watch.js";
export { DevWallets, parseDevWallets, type DevEvmBuyer } from "./dev-wallets.js";
