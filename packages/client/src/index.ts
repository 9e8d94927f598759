export { DevWallets, readDevWallets, type DevEvmBuyer } from "./dev-wallets.js";
