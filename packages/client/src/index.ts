// @board/client for Node: the board's client for agents. Free reads, credentials, per-read
// payment on one rail (x402 on Base, Solana or Algorand; Circle's batched rail; MPP) within a
// daily cap, receipts kept, and watch() to buy a view only when it changed. Errors are data.
//
// Everything of the browser entry, plus what needs the file system: receipts appended to a
// JSON-lines file, and the development wallets file `npm start` writes.

export * from "./browser.js";
export { fileReceipts } from "./node/file-receipts.js";
export { readDevWallets } from "./node/dev-wallets.js";
