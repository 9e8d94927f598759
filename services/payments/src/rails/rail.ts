import type { Rail } from "@board/proto";
import type { FacilitatorClient, ResourceConfig } from "@x402/core/server";
import type { Network, PaymentRequirements, SchemeNetworkServer } from "@x402/core/types";
import type { AnyPaymentPayload } from "./payload.js";
import type { x402Facilitator } from "@x402/core/facilitator";
import type { LocalVerdict, Eip3009Requirement } from "./eip3009-local-verify.js";
import type { BatchOutcome } from "../settlement/batcher.js";
import type { RailNotes } from "./rail-watch.js";


/**
 * One x402 rail: how its offer is built, who verifies and settles it, and what makes one of
 * its payments unique. Rails on our own facilitator register their scheme on it; the batched
 * rail brings Circle's client instead.
 */
export interface X402Rail {
  readonly rail: Rail;
  /** The CAIP-2 network of its offers. */
  readonly network: Network;
  /** Other spellings of the network a payload may carry (Algorand's short and genesis-hash forms). */
  readonly networkAliases: readonly string[];
  /** Its v1 network name, when legacy v1 clients can pay on it. */
  readonly v1Network: string | null;
  /**
   * How its offer for an amount is built: by x402ResourceServer with the rail's scheme server
   * (`server` + `resourceConfig`), or by the rail itself (`offer`) when its library builds it.
   */
  readonly server?: SchemeNetworkServer;
  resourceConfig?(amount: bigint, maxTimeoutSeconds: number): ResourceConfig;
  offer?(amount: bigint, maxTimeoutSeconds: number): Promise<PaymentRequirements>;
  /** Whether an offer (one of ours) belongs to this rail. */
  owns(requirement: PaymentRequirements): boolean;
  /**
   * Asks its backend (its chain's RPC, algod, Circle's Gateway) and checks what the rail needs
   * of it (its chain, its asset, the facilitator's funds); rejects while the backend does not
   * answer, or with RailCheckFailed when it lacks something. The rail is offered only once this
   * resolved (rail-watch.ts), with what it says of itself. Absent: nothing to ask, offered at once.
   */
  probe?(): Promise<RailNotes | void>;
  /** Registers its scheme facilitator(s) on our own facilitator; absent when settled elsewhere. */
  register?(facilitator: x402Facilitator): void;
  /** Verifies and settles its payments: our facilitator, or the rail's own client. */
  facilitator(ours: FacilitatorClient): FacilitatorClient;
  /** The key that makes a payment single use, or null when the payload lacks it. */
  paymentKey(payload: AnyPaymentPayload): string | null;
  /** The paying account, as far as the payload says. */
  payer(payload: AnyPaymentPayload): string | null;
  /**
   * After a restart: did this claimed payment move money on chain? Rails that cannot tell
   * leave their open claims for an operator.
   */
  reconcile?(payload: AnyPaymentPayload): Promise<ChainOutcome>;
  /**
   * Verification without the chain and batched settlement (Base): a payment `verify` accepts
   * is settled by `settle` (one transaction per batch); one it cannot decide (null) goes the
   * facilitator's way, verified and settled by `facilitator`.
   */
  readonly batched?: {
    verify(payload: AnyPaymentPayload, requirement: Eip3009Requirement): Promise<LocalVerdict>;
    /**
     * A definite outcome, or throws: SettlementNotSent (nothing left), SettlementUnknown (the
     * claim stays open). `ready`: whether it may go on chain; `early`, asked once its batch is
     * broadcast and unmined: whether it may be answered now (SettlementBatcher.settleEarly).
     */
    settle(payload: AnyPaymentPayload, ready?: Promise<boolean>, early?: () => Promise<boolean>): Promise<BatchOutcome>;
  };
}

export type ChainOutcome = { settled: true; transaction: string } | { settled: false; expired: boolean };
