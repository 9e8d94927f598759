import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { toFacilitatorEvmSigner } from "@x402/evm";
import { ExactEvmScheme as ExactEvmClient } from "@x402/evm/exact/client";
import { ExactEvmScheme as ExactEvmFacilitator } from "@x402/evm/exact/facilitator";
import {
  createPublicClient,
  createWalletClient,
  decodeFunctionResult,
  encodeFunctionData,
  http,
  publicActions,
  type Address,
  type PrivateKeyAccount,
  type PublicClient,
} from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  MULTICALL3_ADDRESS,
  eip3009TokenAbi,
  multicall3Abi,
  multicall3Artifact,
  startEvmChain,
  type EvmChain,
} from "../src/evm/index.js";

/** ErrEip3009InsufficientBalance in @x402/evm (dist/esm/chunk-VEDHRFNU.mjs). */
const INSUFFICIENT_BALANCE = "invalid_exact_evm_insufficient_balance";
/** ErrEip3009SimulationFailed: what the facilitator says when it cannot tell why. */
const SIMULATION_FAILED = "invalid_exact_evm_transaction_simulation_failed";
const PRICE = 1_500_000n; // 1.50 USDC

let chain: EvmChain;
let client: PublicClient;
let facilitator: ExactEvmFacilitator;
let payTo: Address;

beforeAll(async () => {
  chain = await startEvmChain();
  client = createPublicClient({ chain: chain.chain, transport: http(chain.rpcUrl), pollingInterval: 50 });
  const key = chain.accounts[0];
  if (key === undefined) throw new Error("expected a funded account");
  const account = privateKeyToAccount(key);
  const wallet = createWalletClient({
    account,
    chain: chain.chain,
    transport: http(chain.rpcUrl),
    pollingInterval: 50,
  }).extend(publicActions);
  // viem's generic action signatures are narrower than x402's structural FacilitatorEvmSigner.
  const signer = toFacilitatorEvmSigner({ ...wallet, address: account.address } as unknown as Parameters<
    typeof toFacilitatorEvmSigner
  >[0]);
  facilitator = new ExactEvmFacilitator(signer);
  payTo = privateKeyToAccount(generatePrivateKey()).address;
});

afterAll(async () => {
  await chain?.stop();
});

function requirements(): PaymentRequirements {
  return {
    scheme: "exact",
    network: "eip155:8453",
    asset: chain.usdc,
    amount: PRICE.toString(),
    payTo,
    maxTimeoutSeconds: 60,
    extra: { name: "USD Coin", version: "2" },
  };
}

/** What an x402 client sends: the exact EVM client's EIP-3009 payload plus the accepted requirements. */
async function pay(payer: PrivateKeyAccount): Promise<PaymentPayload> {
  const accepted = requirements();
  const result = await new ExactEvmClient(payer).createPaymentPayload(2, accepted);
  return { ...result, accepted };
}

function newPayer(): PrivateKeyAccount {
  return privateKeyToAccount(generatePrivateKey());
}

describe("Multicall3 at its canonical address", () => {
  it("has code there, and the viem chain points at it", async () => {
    expect(MULTICALL3_ADDRESS).toBe("0xcA11bde05977b3631167028862bE2a173976CA11");
    expect(await client.getCode({ address: MULTICALL3_ADDRESS })).toBe(multicall3Artifact.deployedBytecode);
    expect(chain.chain.contracts?.multicall3?.address).toBe(MULTICALL3_ADDRESS);
  });

  it("tryAggregate returns balanceOf for two accounts", async () => {
    const [rich, poor] = [newPayer().address, newPayer().address];
    await chain.mint(rich, 7_000_000n);
    const callData = (owner: Address) => encodeFunctionData({ abi: eip3009TokenAbi, functionName: "balanceOf", args: [owner] });

    // The aggregate functions are payable (as in the canonical ABI), so viem's readContract
    // does not offer them: simulateContract makes the same eth_call.
    const { result: results } = await client.simulateContract({
      address: MULTICALL3_ADDRESS,
      abi: multicall3Abi,
      functionName: "tryAggregate",
      args: [
        false,
        [
          { target: chain.usdc, callData: callData(rich) },
          { target: chain.usdc, callData: callData(poor) },
        ],
      ],
    });

    expect(results.map((r) => r.success)).toEqual([true, true]);
    const balances = results.map((r) =>
      decodeFunctionResult({ abi: eip3009TokenAbi, functionName: "balanceOf", data: r.returnData }),
    );
    expect(balances).toEqual([7_000_000n, 0n]);
  });

  it("tryAggregate reports a failed call, and reverts on it when requireSuccess", async () => {
    const calls = [
      { target: chain.usdc, callData: encodeFunctionData({ abi: eip3009TokenAbi, functionName: "totalSupply" }) },
      // mint reverts for anyone but the owner (Multicall3 is the caller here).
      {
        target: chain.usdc,
        callData: encodeFunctionData({ abi: eip3009TokenAbi, functionName: "mint", args: [payTo, 1n] }),
      },
    ];
    const { result: results } = await client.simulateContract({
      address: MULTICALL3_ADDRESS,
      abi: multicall3Abi,
      functionName: "tryAggregate",
      args: [false, calls],
    });
    expect(results.map((r) => r.success)).toEqual([true, false]);
    await expect(
      client.simulateContract({ address: MULTICALL3_ADDRESS, abi: multicall3Abi, functionName: "tryAggregate", args: [true, calls] }),
    ).rejects.toThrow(/Multicall3: call failed/);
    await expect(
      client.simulateContract({ address: MULTICALL3_ADDRESS, abi: multicall3Abi, functionName: "aggregate", args: [calls] }),
    ).rejects.toThrow(/Multicall3: call failed/);
  });

  it("serves viem's multicall (aggregate3), getBlockNumber and getEthBalance", async () => {
    const ethHolder = privateKeyToAccount(chain.accounts[1] ?? generatePrivateKey()).address;
    const [blockNumber, ethBalance, name] = await client.multicall({
      allowFailure: false,
      contracts: [
        { address: MULTICALL3_ADDRESS, abi: multicall3Abi, functionName: "getBlockNumber" },
        { address: MULTICALL3_ADDRESS, abi: multicall3Abi, functionName: "getEthBalance", args: [ethHolder] },
        { address: chain.usdc, abi: eip3009TokenAbi, functionName: "name" },
      ],
    });
    expect(blockNumber).toBe(await client.getBlockNumber());
    expect(ethBalance).toBe(10n ** 21n);
    expect(name).toBe("USD Coin");
  });
});

describe("@x402/evm exact facilitator on the local chain", () => {
  it("says insufficient balance for a payer without enough USDC", async () => {
    const payer = newPayer();
    await chain.mint(payer.address, PRICE - 1n);
    const started = performance.now();
    const result = await facilitator.verify(await pay(payer), requirements());
    console.info(`verify (insufficient balance) took ${(performance.now() - started).toFixed(0)} ms`);
    expect(result).toMatchObject({ isValid: false, invalidReason: INSUFFICIENT_BALANCE, payer: payer.address });
  });

  it("verifies and settles a funded payer's payment; payTo receives the amount", async () => {
    const payer = newPayer();
    await chain.mint(payer.address, PRICE * 2n);
    const payload = await pay(payer);
    const payToBefore = await chain.balanceOf(payTo);

    let started = performance.now();
    const verified = await facilitator.verify(payload, requirements());
    console.info(`verify (funded) took ${(performance.now() - started).toFixed(0)} ms`);
    expect(verified).toMatchObject({ isValid: true, payer: payer.address });

    started = performance.now();
    const settled = await facilitator.settle(payload, requirements());
    console.info(`settle took ${(performance.now() - started).toFixed(0)} ms`);
    expect(settled).toMatchObject({ success: true, network: "eip155:8453", payer: payer.address });
    expect(settled.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    expect((await client.getTransactionReceipt({ hash: settled.transaction as `0x${string}` })).status).toBe("success");
    expect(await chain.balanceOf(payTo)).toBe(payToBefore + PRICE);
    expect(await chain.balanceOf(payer.address)).toBe(PRICE);
  });

  it("without Multicall3 the facilitator can only say the simulation failed", async () => {
    const payer = newPayer();
    const payload = await pay(payer); // holds no USDC at all
    const setCode = (code: `0x${string}`) =>
      fetch(chain.rpcUrl, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "hardhat_setCode", params: [MULTICALL3_ADDRESS, code] }),
      }).then((response) => expect(response.ok).toBe(true));

    await setCode("0x");
    try {
      const result = await facilitator.verify(payload, requirements());
      expect(result).toMatchObject({ isValid: false, invalidReason: SIMULATION_FAILED });
    } finally {
      await setCode(multicall3Artifact.deployedBytecode);
    }
    expect(await facilitator.verify(payload, requirements())).toMatchObject({
      isValid: false,
      invalidReason: INSUFFICIENT_BALANCE,
    });
  });
});
