import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import type { PaymentRequired } from "@x402/core/types";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { x402Client } from "@x402/fetch";
import { request } from "undici";
import type { Address } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";

/** What a server asks for `url`: the decoded PAYMENT-REQUIRED header of an unpaid GET. */
export async function paymentRequiredOf(url: string): Promise<PaymentRequired> {
  const res = await request(url);
  await res.body.dump();
  const header = res.headers["payment-required"];
  if (res.statusCode !== 402 || typeof header !== "string") throw new Error(`GET ${url}: expected a 402 with PAYMENT-REQUIRED, got ${res.statusCode}`);
  return decodePaymentRequiredHeader(header);
}

/**
 * Payers, and @x402/evm's own exact client signing for them. Each payment is a distinct
 * EIP-3009 authorization (a fresh random nonce), signed before any timed run. Their USDC is
 * minted when their chain is set up (`addresses`), while it still automines.
 */
export class Payers {
  private constructor(
    private readonly clients: x402Client[],
    /** Each payer's address, in signing order. */
    readonly addresses: Address[],
  ) {}

  /** `count` fresh accounts. */
  static create(count: number): Payers {
    const accounts = Array.from({ length: count }, () => privateKeyToAccount(generatePrivateKey()));
    return new Payers(
      accounts.map((account) => new x402Client().register("eip155:*", new ExactEvmScheme(account))),
      accounts.map((account) => account.address),
    );
  }

  /** `n` PAYMENT-SIGNATURE values for `required` (its first offer), spread round-robin over the payers. */
  async sign(required: PaymentRequired, n: number): Promise<string[]> {
    const pr: PaymentRequired = { ...required, accepts: required.accepts.slice(0, 1) };
    const out: string[] = [];
    for (let i = 0; i < n; i++) {
      const client = this.clients[i % this.clients.length] as x402Client;
      out.push(encodePaymentSignatureHeader(await client.createPaymentPayload(pr)));
    }
    return out;
  }
}
