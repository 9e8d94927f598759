import type { Address, Hex } from "viem";
import type { PaymentsEnv } from "../env.js";
import { SettlementBatcher, type BatchReport } from "../settlement/batcher.js";
import { baseBatchChain } from "../settlement/base-batch-chain.js";
import { BASE_CHAIN_ID, baseExactRail, baseReader, baseSigner } from "./base-exact.js";
import { circleBatchedRail } from "./circle-batched.js";
import type { MppRail } from "./mpp/index.js";
import type { X402Rail } from "./rail.js";

export interface ConfiguredRails {
  /** The x402 rails, in the order of the 402's `accepts`. */
  x402: X402Rail[];
  /** The MPP usdc charge on Base, when MPP_SECRET_KEY is set. */
  mpp: MppRail | null;
  /** Asks MPP's backend, the Base RPC it settles on (the Base rail's probe); null without MPP. */
  mppProbe: (() => Promise<void>) | null;
  /** Settles Base's EIP-3009 payments (x402 and MPP) in Multicall3 batches; null without Base. */
  batcher: SettlementBatcher | null;
}

/** What the payments service watches of its rails. */
export interface RailInstruments {
  /** Each JSON-RPC method sent to the Base node. */
  onChainCall?: (method: string) => void;
  /** Each settlement batch closed. */
  onBatch?: (report: BatchReport) => void;
}

/** The rails this configuration offers. One facilitator account on Base serves x402 and MPP alike (one nonce sequence). */
export async function configuredRails(env: PaymentsEnv, instruments: RailInstruments = {}): Promise<ConfiguredRails> {
  const x402: X402Rail[] = [];
  let mpp: MppRail | null = null;
  let mppProbe: (() => Promise<void>) | null = null;
  let batcher: SettlementBatcher | null = null;
  if (env.PAY_TO_BASE && env.BASE_RPC_URL && env.BASE_FACILITATOR_KEY) {
    const cfg = {
      payTo: env.PAY_TO_BASE as Address,
      rpcUrl: env.BASE_RPC_URL,
      facilitatorKey: env.BASE_FACILITATOR_KEY as Hex,
      usdc: env.BASE_USDC_ADDRESS as Address,
      verifier: env.EVM_VERIFIER,
      ...(instruments.onChainCall && { onChainCall: instruments.onChainCall }),
    };
    const signer = baseSigner(cfg);
    const reader = baseReader(cfg);
    batcher = new SettlementBatcher(
      baseBatchChain(signer, reader, BASE_CHAIN_ID),
      cfg.usdc,
      {
        maxSize: env.SETTLEMENT_BATCH_MAX,
        windowMs: env.SETTLEMENT_BATCH_WINDOW_MS,
        receiptTimeoutMs: env.SETTLEMENT_RECEIPT_TIMEOUT_MS,
        receiptPollMs: env.SETTLEMENT_RECEIPT_POLL_MS,
      },
      instruments.onBatch,
    );
    const settleInBatch = batcher;
    const base = baseExactRail(cfg, signer, reader, batcher);
    x402.push(base);
    if (env.CIRCLE_GATEWAY_URL) x402.push(circleBatchedRail({ payTo: cfg.payTo, usdc: cfg.usdc, gatewayUrl: env.CIRCLE_GATEWAY_URL }));
    if (env.MPP_SECRET_KEY) {
      // MPP's code and mppx load only where MPP is offered.
      const [{ createMppRail }, { claimsReplayStore }] = await Promise.all([import("./mpp/index.js"), import("./mpp/claims-replay-store.js")]);
      mpp = createMppRail({
        secretKey: env.MPP_SECRET_KEY,
        realm: new URL(env.PUBLIC_BASE_URL).host,
        payTo: cfg.payTo,
        usdc: cfg.usdc,
        chainId: BASE_CHAIN_ID,
        challengeTtlSeconds: env.PAYMENT_TIMEOUT_SECONDS,
        replayStore: claimsReplayStore(),
        // The signature is checked by the method; balance and nonce by the batch's simulation,
        // once per batch, and the chain's result of each transfer is final: no chain read here.
        verifyAuthorization: async (authorization) => {
          settleInBatch.expect(authorization);
          return { ok: true };
        },
        settleAuthorization: (authorization) => settleInBatch.settle(authorization),
      });
      mppProbe = () => base.probe?.() ?? Promise.resolve();
    }
  }
  // Solana's and Algorand's rail code and SDKs (about 25 MB of heap together) load only where
  // their rail is configured; each module decides from the rest of its settings.
  if (env.PAY_TO_SOLANA) x402.push(...(await import("./solana-exact.js")).solanaRails(env));
  if (env.PAY_TO_ALGORAND) x402.push(...(await import("./algorand-exact.js")).algorandRails(env));
  return { x402, mpp, mppProbe, batcher };
}
