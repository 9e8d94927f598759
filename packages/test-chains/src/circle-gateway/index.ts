/**
 * A STAND-IN, for tests, of Circle Gateway's HTTP API: the part @circle-fin/x402-batching's
 * BatchFacilitatorClient talks to when a service verifies and settles a batched x402 payment
 * ("exact" scheme, accepts entry with extra.name "GatewayWalletBatched"). It is not Circle's
 * service and settles nothing onchain; it keeps Gateway balances in memory.
 *
 * Endpoints stood in for (base URL = `url`, no auth unless `requiredHeaders` is set):
 * - GET  /v1/x402/supported: one kind `{ x402Version: 2, scheme: "exact", network, extra: { name:
 *   "GatewayWalletBatched", version: "1", verifyingContract (GatewayWallet), minValiditySeconds,
 *   assets: [{ symbol: "USDC", address, decimals: 6 }] } }`, plus `extensions: []`, `signers: {}`.
 * - POST /v1/x402/verify `{ paymentPayload, paymentRequirements }`: 200 `{ isValid: true, payer }`
 *   or `{ isValid: false, invalidReason, payer? }`. Read-only checks, as Circle documents: scheme,
 *   network, asset (USDC), payload shape, the EIP-712 signature (domain GatewayWalletBatched / 1 /
 *   chainId / GatewayWallet, type TransferWithAuthorization) recovering to authorization.from,
 *   validAfter <= now < validBefore with at least minValiditySeconds left, to == payTo,
 *   value == amount, from != to. Balance and nonce are NOT checked here.
 * - POST /v1/x402/settle, same body: 200 `{ success: true, transaction: <uuid>, network, payer }`
 *   or `{ success: false, errorReason, transaction: "", network, payer? }`. Every verify check,
 *   then the nonce (an authorization settles once) and the payer's balance; on success it debits
 *   the payer and credits payTo's Gateway balance.
 * - POST /v1/balances `{ token: "USDC", sources: [{ depositor, domain? }] }`: 200 `{ token,
 *   balances: [{ domain, depositor, balance: "<decimal USDC>" }] }` (GatewayClient's call; that
 *   client hardcodes Circle's URL, so only direct callers can reach the stand-in).
 * Reasons are Circle's documented codes (GATEWAY_REASONS). A body that is not JSON or lacks
 * paymentPayload/paymentRequirements gets 400 `{ code, message }`, which BatchFacilitatorClient
 * turns into a thrown Error. Only EOA signatures are accepted (no ERC-1271 / ERC-6492).
 */
export { GATEWAY_REASONS, type GatewayReason } from "./check.js";
export type { GatewaySettlement } from "./ledger.js";
export {
  GATEWAY_BASE,
  GATEWAY_BASE_SEPOLIA,
  GATEWAY_BATCHED_NAME,
  GATEWAY_BATCHED_VERSION,
  GATEWAY_MIN_VALIDITY_SECONDS,
  type GatewayNetwork,
} from "./network.js";
export { startCircleGatewayStandIn, type CircleGatewayStandIn, type CircleGatewayStandInOptions } from "./server.js";
