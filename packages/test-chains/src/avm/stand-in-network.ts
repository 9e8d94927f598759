/**
 * Algorand mainnet identity as the algod stand-in presents it: the genesis values a transaction
 * must carry, the two CAIP-2 spellings @x402/avm accepts, and Circle's USDC ASA.
 */

/** Genesis hash of Algorand mainnet (base64), as algod's /v2/transactions/params returns it. */
export const ALGORAND_MAINNET_GENESIS_HASH = "wGHE2Pwdvd7S12BL5FaOP20EGYesN73ktiC1qzkkit8=";
export const ALGORAND_MAINNET_GENESIS_ID = "mainnet-v1.0";

/** CAIP-2 id @x402/avm uses for mainnet: the first 32 characters of the genesis hash. */
export const ALGORAND_MAINNET_NETWORK = "algorand:wGHE2Pwdvd7S12BL5FaOP20EGYesN73k";
/** The full genesis-hash spelling; @x402/avm normalizes it to ALGORAND_MAINNET_NETWORK. */
export const ALGORAND_MAINNET_NETWORK_FULL = `algorand:${ALGORAND_MAINNET_GENESIS_HASH}` as const;

/** Circle's USDC on Algorand mainnet (ASA id), 6 decimals. */
export const ALGORAND_USDC_ASSET_ID = 31566704;
export const ALGORAND_USDC_DECIMALS = 6;

// Protocol values the stand-in enforces (mainnet consensus at the time of writing).
export const MIN_TXN_FEE = 1000n;
export const MIN_BALANCE = 100_000n;
export const MIN_BALANCE_PER_ASSET = 100_000n;
export const MAX_GROUP_SIZE = 16;
export const MAX_TXN_LIFE = 1000n;
export const CONSENSUS_VERSION = "https://github.com/algorandfoundation/specs/tree/953304de35264fc3ef91bcd05c123242015eeaed";
