// @board/client: the board's client for agents. Free reads, credentials, per-read payment on
// one rail (x402 on Base, Solana or Algorand; Circle's batched rail; MPP) within a daily cap,
// receipts kept, and watch() to buy a view only when it changed. Errors are data.
//
// Each rail's SDK loads only when createPayer makes a payer of that rail.

export { BoardClient, type BoardClientOptions, type ReadResult } from "./client.js";
export { balanceOf, type Balance } from "./balance.js";
export { type Credential } from "./credentials.js";
export { ClientErrorCode, type ClientError, type ErrorReason, type Result } from "./errors.js";
export { createPayer, devWalletConfig, type RailConfig } from "./pay/index.js";
export { RAILS, type Payer, type PayOutcome, type Quote, type Rail, type Settlement } from "./pay/types.js";
export { Receipt, ReceiptLog } from "./receipts.js";
export { READS, type BodyOf, type Query, type ReadPath } from "./routes.js";
export { SIGN_IN_CHAINS, type SignInSession, type WalletSigner } from "./sign-in.js";
export { baseUnits, formatUsdc, SpendCap, type BaseUnits } from "./spend-cap.js";
export { type WatchEvent, type WatchOptions } from "./watch.js";
export { DevWallets, readDevWallets, type DevEvmBuyer } from "./dev-wallets.js";
