import type { Logger } from "@board/service-kit";
import { getAddress, type Address, type Hex } from "viem";
import type { PaymentsEnv } from "../env.js";
import { MULTICALL3 } from "../settlement/aggregate3.js";
import { SettlementBatcher, type BatchReport } from "../settlement/batcher.js";
import { baseBatchChain, batchGasLimit } from "../settlement/base-batch-chain.js";
import { baseSingleChain, SINGLE_TRANSFER_GAS } from "../settlement/base-single-chain.js";
import { FacilitatorGas, settlementCost } from "../settlement/facilitator-gas.js";
import { baseRailCheck } from "./base-chain-check.js";
import { BASE_CHAIN_ID, BASE_NETWORK, baseExactRail, baseReader, baseSigner, USDC_DOMAIN } from "./base-exact.js";
import { circleBatchedRail } from "./circle-batched.js";
import type { MppRail } from "./mpp/index.js";
import type { X402Rail } from "./rail.js";
import type { RailNotes } from "./rail-watch.js";

export interface ConfiguredRails {
  /** The x402 rails, in the order of the 402's `accepts`. */
  x402: X402Rail[];
  /** The MPP usdc charge on Base, when MPP_SECRET_KEY is set. */
  mpp: MppRail | null;
  /** Checks MPP's backend, the Base chain it settles on (the Base rail's check); null without MPP. */
  mppProbe: (() => Promise<RailNotes>) | null;
  /** Settles Base's EIP-3009 payments (x402 and MPP) in Multicall3 batches; null without Base. */
  batcher: SettlementBatcher | null;
  /** The Base facilitator's gas, to be watched while its rails are offered; null without Base. */
  facilitatorGas: FacilitatorGas | null;
}

/** What the payments service watches of its rails. */
export interface RailInstruments {
  /** Each JSON-RPC method sent to the Base node. */
  onChainCall?: (method: string) => void;
  /** Each settlement batch closed. */
  onBatch?: (report: BatchReport) => void;
  /** The facilitator's balance, in wei, each time it is read. */
  onFacilitatorBalance?: (network: string, wei: bigint) => void;
}

/** The rails this configuration offers. One facilitator account on Base serves x402 and MPP alike (one nonce sequence). */
export async function configuredRails(env: PaymentsEnv, log: Logger, instruments: RailInstruments = {}): Promise<ConfiguredRails> {
  const x402: X402Rail[] = [];
  let mpp: MppRail | null = null;
  let mppProbe: (() => Promise<RailNotes>) | null = null;
  let batcher: SettlementBatcher | null = null;
  let facilitatorGas: FacilitatorGas | null = null;
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
    const batchChain = baseBatchChain(signer, reader);
    batcher = new SettlementBatcher(
      batchChain,
      cfg.usdc,
      {
        maxSize: env.SETTLEMENT_BATCH_MAX,
        windowMs: env.SETTLEMENT_BATCH_WINDOW_MS,
        receiptTimeoutMs: env.SETTLEMENT_RECEIPT_TIMEOUT_MS,
        receiptPollMs: env.SETTLEMENT_RECEIPT_POLL_MS,
        finalConfirmations: env.SETTLEMENT_FINAL_CONFIRMATIONS,
      },
      instruments.onBatch,
    );
    const settleInBatch = batcher;
    // Without Multicall3 on the chain (a devnet, a fork), one transferWithAuthorization per transaction.
    const singleChain = baseSingleChain(signer, reader);
    const settlementGas = (batched: boolean) => (batched ? batchGasLimit(env.SETTLEMENT_BATCH_MAX) : SINGLE_TRANSFER_GAS);
    let batched = true;
    const facilitator = signer.getAddresses()[0] as Address;
    const gas = new FacilitatorGas({
      network: BASE_NETWORK,
      facilitator,
      floor: env.BASE_FACILITATOR_LOW_BALANCE_ETH,
      log,
      ...(instruments.onFacilitatorBalance && { gauge: instruments.onFacilitatorBalance }),
      async read() {
        const [balance, gasPrice] = await Promise.all([reader.getBalance({ address: facilitator }), reader.getGasPrice()]);
        return { balance, settlementCost: settlementCost(settlementGas(batched), gasPrice) };
      },
    });
    facilitatorGas = gas;
    const check = baseRailCheck({
      reader,
      needs: {
        chainId: BASE_CHAIN_ID,
        usdc: getAddress(cfg.usdc),
        domain: { ...USDC_DOMAIN, chainId: BASE_CHAIN_ID, verifyingContract: getAddress(cfg.usdc) },
        multicall3: MULTICALL3,
        facilitator,
      },
      gas,
      settlementGas,
      log,
      onSettlement(settlement) {
        batched = settlement === "batched";
        settleInBatch.route(batched ? batchChain : singleChain, batched ? env.SETTLEMENT_BATCH_MAX : 1);
      },
    });
    const base = baseExactRail(cfg, signer, reader, batcher, check);
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
        // The domain the Base rail's check holds the token to.
        eip712: { ...USDC_DOMAIN },
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
      mppProbe = check;
    }
  }
  // Solana's and Algorand's rail code and SDKs (about 25 MB of heap together) load only where
  // their rail is configured; each module decides from the rest of its settings.
  if (env.PAY_TO_SOLANA) x402.push(...(await import("./solana-exact.js")).solanaRails(env));
  if (env.PAY_TO_ALGORAND) x402.push(...(await import("./algorand-exact.js")).algorandRails(env));
  return { x402, mpp, mppProbe, batcher, facilitatorGas };
}
