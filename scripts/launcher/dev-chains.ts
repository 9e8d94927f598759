// Development chains for `npm start` when no payment rail is configured: every rail is offered
// against local chains so a newcomer can buy a read at once, with no real money anywhere. The
// EVM chain (chainId 8453, USDC at Base's address) and the Solana chain are real local chains
// from @board/test-chains; Algorand and Circle's Gateway are STAND-INS at their HTTP boundary
// (no offline node exists for either). A funded buyer per rail goes to dev-wallets.json (0600);
// its keys are kept across restarts (the chains are not: each start funds the buyers anew).

import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { DevWallets, readDevWallets } from "@board/client/dev-wallets";
import { startAlgodStandIn } from "@board/test-chains/avm";
import { startCircleGatewayStandIn } from "@board/test-chains/circle-gateway";
import { BASE_USDC_ADDRESS, startEvmChain } from "@board/test-chains/evm";
import { startSvmChain } from "@board/test-chains/svm";
import algosdk from "algosdk";
import { getBase58Decoder } from "@solana/kit";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import type { Hex } from "viem";
import type { DevChains } from "./rails.js";

/** What each buyer is funded with at every start: 100 USDC (6 decimals). */
export const DEV_FUNDING = 100_000_000n;


const base58 = getBase58Decoder();

/** A fresh Solana keypair: the 64-byte secret (seed then public key) and its address. */
function solanaKeypair(): { address: string; secretKey: string } {
  const account = algosdk.generateAccount(); // ed25519 with the same 64-byte layout
  return { address: base58.decode(account.sk.slice(32)), secretKey: base58.decode(account.sk) };
}

function previousWallets(file: string): DevWallets | null {
  if (!existsSync(file)) return null;
  try {
    return readDevWallets(file);
  } catch {
    return null; // Unreadable: new keys, the file is rewritten.
  }
}

export async function startDevChains(opts: { gateway: string; walletsFile: string }): Promise<DevChains> {
  const before = previousWallets(opts.walletsFile);
  const started: { stop(): Promise<void> }[] = [];
  try {
    // Base: the facilitator pays gas from the chain's first funded account; buyers need no ETH (EIP-3009, MPP).
    const evm = await startEvmChain({ accounts: 1 });
    started.push(evm);
    const baseBuyer = (before?.base.buyer.private_key as Hex | undefined) ?? generatePrivateKey();
    const batchedBuyer = (before?.batched.buyer.private_key as Hex | undefined) ?? generatePrivateKey();
    const basePayTo = (before?.base.pay_to as Hex | undefined) ?? privateKeyToAccount(generatePrivateKey()).address;
    await evm.mint(privateKeyToAccount(baseBuyer).address, DEV_FUNDING);

    const svm = await startSvmChain({ accounts: 1 });
    started.push(svm);
    const solanaBuyer = before ? { address: before.solana.buyer.address, secretKey: before.solana.buyer.secret_key } : solanaKeypair();
    const solanaPayTo = before?.solana.pay_to ?? solanaKeypair().address;
    await svm.mint(solanaBuyer.address, DEV_FUNDING);
    await svm.mint(solanaPayTo, 0n); // the payee's token account

    const algod = await startAlgodStandIn({ accounts: 1 });
    started.push(algod);
    const algoBuyer = before ? algosdk.mnemonicToSecretKey(before.algorand.buyer.mnemonic) : algosdk.generateAccount();
    const algoPayTo = before?.algorand.pay_to ?? algosdk.generateAccount().addr.toString();
    for (const address of [algoBuyer.addr.toString(), algoPayTo]) {
      algod.fund(address, 1_000_000n);
      algod.optIn(address);
    }
    algod.mintUsdc(algoBuyer.addr.toString(), DEV_FUNDING);

    const gateway = await startCircleGatewayStandIn();
    started.push(gateway);
    gateway.deposit(privateKeyToAccount(batchedBuyer).address, DEV_FUNDING);

    const wallets: DevWallets = {
      development: true,
      note: "Development chains started by `npm start`: local chains and stand-ins, no real money. Balances reset at every start.",
      gateway: opts.gateway,
      written_at: new Date().toISOString(),
      base: {
        network: "eip155:8453",
        rpc_url: evm.rpcUrl,
        usdc: BASE_USDC_ADDRESS,
        pay_to: basePayTo,
        buyer: { address: privateKeyToAccount(baseBuyer).address, private_key: baseBuyer },
      },
      solana: {
        network: "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp",
        rpc_url: svm.rpcUrl,
        pay_to: solanaPayTo,
        buyer: { address: solanaBuyer.address, secret_key: solanaBuyer.secretKey },
      },
      algorand: {
        network: algod.network,
        algod_url: algod.url,
        algod_token: algod.token,
        pay_to: algoPayTo,
        buyer: { address: algoBuyer.addr.toString(), mnemonic: algosdk.secretKeyToMnemonic(algoBuyer.sk) },
      },
      batched: {
        network: "eip155:8453",
        gateway_url: gateway.url,
        buyer: { address: privateKeyToAccount(batchedBuyer).address, private_key: batchedBuyer },
      },
      mpp: { buyer: { address: privateKeyToAccount(baseBuyer).address, private_key: baseBuyer } },
    };
    writeWallets(opts.walletsFile, wallets);

    const feePayer = svm.accounts[0]!;
    const env: Record<string, string> = {
      PAYMENTS_MODE: "development",
      PAY_TO_BASE: basePayTo,
      BASE_RPC_URL: evm.rpcUrl,
      BASE_FACILITATOR_KEY: evm.accounts[0]!,
      BASE_USDC_ADDRESS,
      PAY_TO_SOLANA: solanaPayTo,
      SOLANA_RPC_URL: svm.rpcUrl,
      SOLANA_FACILITATOR_KEY: feePayer.secretKeyBase58,
      PAY_TO_ALGORAND: algoPayTo,
      ALGOD_URL: algod.url,
      ALGOD_TOKEN: algod.token,
      ALGORAND_FACILITATOR_MNEMONIC: algod.accounts[0]!.mnemonic,
      CIRCLE_GATEWAY_URL: gateway.url,
      MPP_SECRET_KEY: randomBytes(32).toString("base64url"),
    };
    return {
      env,
      wallets,
      async stop() {
        await Promise.allSettled(started.map((c) => c.stop()));
      },
    };
  } catch (err) {
    await Promise.allSettled(started.map((c) => c.stop()));
    throw err;
  }
}

/** The wallets hold keys: the file is the owner's alone, written whole. */
function writeWallets(file: string, wallets: DevWallets): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(DevWallets.parse(wallets), null, 2)}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
}
