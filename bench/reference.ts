import type { AddressInfo } from "node:net";
import { x402Facilitator } from "@x402/core/facilitator";
import type { FacilitatorClient } from "@x402/core/server";
import type { SupportedResponse } from "@x402/core/types";
import { registerExactEvmScheme } from "@x402/evm/exact/facilitator";
import { ExactEvmScheme } from "@x402/evm/exact/server";
import { paymentMiddleware, x402ResourceServer } from "@x402/express";
import express from "express";
import type { Address, Hex } from "viem";
import { baseSigner } from "../services/payments/src/rails/base-exact.js";
import type { BareServer } from "./ceiling.js";

export interface ReferenceOptions {
  path: string;
  body: Buffer;
  price: bigint;
  payTo: Address;
  usdc: Address;
  rpcUrl: string;
  /** Its own facilitator account, so its nonces never race the stack's. */
  facilitatorKey: Hex;
  maxTimeoutSeconds: number;
}

const NETWORK = "eip155:8453" as const;

/**
 * The x402 reference for one paid read: @x402/express's paymentMiddleware on a plain express 5
 * app, x402's resource server with the exact EVM scheme, and x402's own facilitator in this
 * process. Its chain signer is the stack's viem one (viem's pure-JS signature recovery, viem's
 * nonce manager, broadcasts in nonce order: a single settling account needs both on this
 * automining chain), so the two paths differ in their architecture, not in chain I/O.
 */
export async function startReference(opts: ReferenceOptions): Promise<BareServer> {
  const facilitator = new x402Facilitator();
  registerExactEvmScheme(facilitator, { signer: baseSigner({ rpcUrl: opts.rpcUrl, facilitatorKey: opts.facilitatorKey, verifier: "viem" }), networks: NETWORK });
  const client: FacilitatorClient = {
    verify: (payload, requirements) => facilitator.verify(payload, requirements),
    settle: (payload, requirements) => facilitator.settle(payload, requirements),
    getSupported: async () => facilitator.getSupported() as SupportedResponse,
  };
  const server = new x402ResourceServer(client).register(NETWORK, new ExactEvmScheme());

  const app = express();
  app.set("etag", false);
  app.set("x-powered-by", false);
  app.use(
    paymentMiddleware(
      {
        [`GET ${opts.path}`]: {
          accepts: {
            scheme: "exact",
            network: NETWORK,
            payTo: opts.payTo,
            price: { amount: opts.price.toString(), asset: opts.usdc, extra: { name: "USD Coin", version: "2" } },
            maxTimeoutSeconds: opts.maxTimeoutSeconds,
          },
          description: "Regime verdict per book plus the permission ladder.",
          mimeType: "application/json",
        },
      },
      server,
    ),
  );
  app.get(opts.path, (_req, res) => {
    res.setHeader("Content-Type", "application/json; charset=utf-8");
    res.setHeader("Content-Length", String(opts.body.length));
    res.status(200).end(opts.body);
  });

  const listening = app.listen(0, "127.0.0.1");
  await new Promise<void>((resolve, reject) => {
    listening.once("listening", resolve);
    listening.once("error", reject);
  });
  listening.keepAliveTimeout = 60_000;
  const { port } = listening.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve, reject) => {
        listening.closeAllConnections();
        listening.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}
