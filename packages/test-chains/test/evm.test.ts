import { randomBytes } from "node:crypto";
import {
  createPublicClient,
  createWalletClient,
  encodeFunctionData,
  hashDomain,
  http,
  keccak256,
  parseEventLogs,
  parseSignature,
  toHex,
  type Address,
  type Hex,
  type PrivateKeyAccount,
  type PublicClient,
} from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eip3009TokenAbi, startEvmChain, type EvmChain } from "../src/evm/index.js";
import { nextBlock as nextBlockOf } from "./next-block.js";

const transferWithAuthorizationTypes = {
  TransferWithAuthorization: [
    { name: "from", type: "address" },
    { name: "to", type: "address" },
    { name: "value", type: "uint256" },
    { name: "validAfter", type: "uint256" },
    { name: "validBefore", type: "uint256" },
    { name: "nonce", type: "bytes32" },
  ],
} as const;

const cancelAuthorizationTypes = {
  CancelAuthorization: [
    { name: "authorizer", type: "address" },
    { name: "nonce", type: "bytes32" },
  ],
} as const;

interface Authorization {
  from: Address;
  to: Address;
  value: bigint;
  validAfter: bigint;
  validBefore: bigint;
  nonce: Hex;
}

let chain: EvmChain;
let client: PublicClient;
let payer: PrivateKeyAccount;
let facilitator: PrivateKeyAccount;
let payee: PrivateKeyAccount;
let startupMs: number;

beforeAll(async () => {
  const started = performance.now();
  chain = await startEvmChain();
  startupMs = performance.now() - started;
  console.info(`EVM chain started in ${startupMs.toFixed(0)} ms at ${chain.rpcUrl}`);
  client = createPublicClient({ chain: chain.chain, transport: http(chain.rpcUrl), pollingInterval: 50 });
  const [a, b, c] = chain.accounts;
  if (a === undefined || b === undefined || c === undefined) throw new Error("expected at least 3 accounts");
  [payer, facilitator, payee] = [privateKeyToAccount(a), privateKeyToAccount(b), privateKeyToAccount(c)];
  await chain.mint(payer.address, 1_000_000_000n); // 1,000 USDC
});

afterAll(async () => {
  await chain?.stop();
});

const nowSeconds = (): bigint => BigInt(Math.floor(Date.now() / 1000));

function authorization(overrides: Partial<Authorization> = {}): Authorization {
  return {
    from: payer.address,
    to: payee.address,
    value: 1_500_000n, // 1.50 USDC
    validAfter: 0n,
    validBefore: nowSeconds() + 600n,
    nonce: toHex(randomBytes(32)),
    ...overrides,
  };
}

function domain() {
  return { name: "USD Coin", version: "2", chainId: 8453, verifyingContract: chain.usdc } as const;
}

function sign(auth: Authorization, signer: PrivateKeyAccount = payer): Promise<Hex> {
  return signer.signTypedData({
    domain: domain(),
    types: transferWithAuthorizationTypes,
    primaryType: "TransferWithAuthorization",
    message: auth,
  });
}

/** Submits with the (v, r, s) overload, from the facilitator, and waits for the receipt. */
async function submitVrs(auth: Authorization, signature: Hex): Promise<Hex> {
  const { v, r, s } = parseSignature(signature);
  if (v === undefined) throw new Error("expected a legacy (v, r, s) signature");
  const wallet = createWalletClient({ account: facilitator, chain: chain.chain, transport: http(chain.rpcUrl) });
  const hash = await wallet.writeContract({
    address: chain.usdc,
    abi: eip3009TokenAbi,
    functionName: "transferWithAuthorization",
    args: [auth.from, auth.to, auth.value, auth.validAfter, auth.validBefore, auth.nonce, Number(v), r, s],
  });
  const receipt = await client.waitForTransactionReceipt({ hash });
  expect(receipt.status).toBe("success");
  return hash;
}

/** Submits with the bytes-signature overload (FiatTokenV2_2), from the facilitator. */
async function submitBytes(auth: Authorization, signature: Hex): Promise<Hex> {
  const wallet = createWalletClient({ account: facilitator, chain: chain.chain, transport: http(chain.rpcUrl) });
  const hash = await wallet.writeContract({
    address: chain.usdc,
    abi: eip3009TokenAbi,
    functionName: "transferWithAuthorization",
    args: [auth.from, auth.to, auth.value, auth.validAfter, auth.validBefore, auth.nonce, signature],
  });
  const receipt = await client.waitForTransactionReceipt({ hash });
  expect(receipt.status).toBe("success");
  return hash;
}

function authorizationState(auth: Authorization): Promise<boolean> {
  return client.readContract({
    address: chain.usdc,
    abi: eip3009TokenAbi,
    functionName: "authorizationState",
    args: [auth.from, auth.nonce],
  });
}

describe("startEvmChain", () => {
  it("serves chainId 8453 over HTTP, with automine", async () => {
    expect(chain.chainId).toBe(8453);
    expect(await client.getChainId()).toBe(8453);
    const response = await fetch(chain.rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "hardhat_getAutomine", params: [] }),
    });
    expect(await response.json()).toMatchObject({ result: true });
    expect(startupMs).toBeLessThan(10_000);
  });

  it("funds the generated accounts with ETH", async () => {
    expect(chain.accounts.length).toBe(4);
    for (const key of chain.accounts) {
      expect(await client.getBalance({ address: privateKeyToAccount(key).address })).toBe(10n ** 21n);
    }
  });

  it("has the token at the Base USDC address, with Base USDC's metadata and EIP-712 domain", async () => {
    expect(chain.usdc).toBe("0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913");
    const read = <F extends "name" | "symbol" | "decimals" | "version" | "DOMAIN_SEPARATOR" | "TRANSFER_WITH_AUTHORIZATION_TYPEHASH">(
      functionName: F,
    ) => client.readContract({ address: chain.usdc, abi: eip3009TokenAbi, functionName });
    expect(await read("name")).toBe("USD Coin");
    expect(await read("symbol")).toBe("USDC");
    expect(await read("decimals")).toBe(6);
    expect(await read("version")).toBe("2");
    // The typehash published in EIP-3009.
    expect(await read("TRANSFER_WITH_AUTHORIZATION_TYPEHASH")).toBe(
      "0x7c7c6cdb67a18743f49ec6fa9b35f50d52ed05cbed4cc592e13b44501c1a2267",
    );
    expect(await read("DOMAIN_SEPARATOR")).toBe(
      hashDomain({
        domain: { ...domain(), chainId: 8453n },
        types: {
          EIP712Domain: [
            { name: "name", type: "string" },
            { name: "version", type: "string" },
            { name: "chainId", type: "uint256" },
            { name: "verifyingContract", type: "address" },
          ],
        },
      }),
    );
  });

  it("mints and reports balances", async () => {
    const holder = privateKeyToAccount(generatePrivateKey()).address;
    expect(await chain.balanceOf(holder)).toBe(0n);
    const hash = await chain.mint(holder, 42_000_000n);
    expect(hash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await chain.balanceOf(holder)).toBe(42_000_000n);
  });

  it("only lets the owner mint", async () => {
    const wallet = createWalletClient({ account: payer, chain: chain.chain, transport: http(chain.rpcUrl) });
    await expect(
      wallet.writeContract({ address: chain.usdc, abi: eip3009TokenAbi, functionName: "mint", args: [payer.address, 1n] }),
    ).rejects.toThrow(/caller is not the owner/);
  });
});

describe("transferWithAuthorization", () => {
  it("moves funds when a facilitator submits the payer's signature, and flips authorizationState", async () => {
    const auth = authorization();
    const payerBefore = await chain.balanceOf(payer.address);
    const payeeBefore = await chain.balanceOf(payee.address);
    const facilitatorBefore = await chain.balanceOf(facilitator.address);
    expect(await authorizationState(auth)).toBe(false);

    const started = performance.now();
    const signature = await sign(auth);
    const hash = await submitVrs(auth, signature);
    const settleMs = performance.now() - started;
    console.info(`settlement (sign + submit + receipt) took ${settleMs.toFixed(1)} ms`);

    expect(await chain.balanceOf(payer.address)).toBe(payerBefore - auth.value);
    expect(await chain.balanceOf(payee.address)).toBe(payeeBefore + auth.value);
    expect(await chain.balanceOf(facilitator.address)).toBe(facilitatorBefore);
    expect(await authorizationState(auth)).toBe(true);

    const receipt = await client.getTransactionReceipt({ hash });
    expect(receipt.from.toLowerCase()).toBe(facilitator.address.toLowerCase());
    const events = parseEventLogs({ abi: eip3009TokenAbi, logs: receipt.logs });
    expect(events.map((e) => e.eventName)).toEqual(["AuthorizationUsed", "Transfer"]);
  });

  it("accepts the bytes-signature overload", async () => {
    const auth = authorization({ value: 250_000n });
    const payeeBefore = await chain.balanceOf(payee.address);
    await submitBytes(auth, await sign(auth));
    expect(await chain.balanceOf(payee.address)).toBe(payeeBefore + auth.value);
    expect(await authorizationState(auth)).toBe(true);
  });

  it("rejects a replayed authorization", async () => {
    const auth = authorization();
    const signature = await sign(auth);
    await submitVrs(auth, signature);
    await expect(submitVrs(auth, signature)).rejects.toThrow(/authorization is used or canceled/);
    await expect(submitBytes(auth, signature)).rejects.toThrow(/authorization is used or canceled/);
  });

  it("rejects an expired authorization", async () => {
    const auth = authorization({ validBefore: nowSeconds() - 1n });
    await expect(submitVrs(auth, await sign(auth))).rejects.toThrow(/authorization is expired/);
    expect(await authorizationState(auth)).toBe(false);
  });

  it("rejects an authorization that is not yet valid", async () => {
    const auth = authorization({ validAfter: nowSeconds() + 3600n });
    await expect(submitVrs(auth, await sign(auth))).rejects.toThrow(/authorization is not yet valid/);
  });

  it("rejects a signature by someone other than `from`", async () => {
    const auth = authorization();
    const impostor = privateKeyToAccount(generatePrivateKey());
    const signature = await sign(auth, impostor);
    await expect(submitVrs(auth, signature)).rejects.toThrow(/invalid signature/);
    await expect(submitBytes(auth, signature)).rejects.toThrow(/invalid signature/);
    expect(await authorizationState(auth)).toBe(false);
  });

  it("rejects a signature over different terms (value changed after signing)", async () => {
    const auth = authorization();
    const signature = await sign(auth);
    await expect(submitVrs({ ...auth, value: auth.value * 10n }, signature)).rejects.toThrow(/invalid signature/);
  });

  it("rejects a signature for another chain's domain", async () => {
    const auth = authorization();
    const signature = await payer.signTypedData({
      domain: { ...domain(), chainId: 84532 },
      types: transferWithAuthorizationTypes,
      primaryType: "TransferWithAuthorization",
      message: auth,
    });
    await expect(submitVrs(auth, signature)).rejects.toThrow(/invalid signature/);
  });

  it("rejects a transfer above the payer's balance", async () => {
    const auth = authorization({ value: (await chain.balanceOf(payer.address)) + 1n });
    await expect(submitVrs(auth, await sign(auth))).rejects.toThrow(/transfer amount exceeds balance/);
  });
});

describe("reverts look like a real node's", () => {
  it("a reverted call is JSON-RPC error 3 with the revert data, so viem does not retry it", async () => {
    const response = await fetch(chain.rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "eth_call",
        params: [
          {
            from: payer.address,
            to: chain.usdc,
            data: encodeFunctionData({ abi: eip3009TokenAbi, functionName: "mint", args: [payer.address, 1n] }),
          },
          "latest",
        ],
      }),
    });
    const body = (await response.json()) as { error?: { code: number; message: string; data?: { data?: string } } };
    expect(body.error?.code).toBe(3);
    expect(body.error?.message).toBe("execution reverted: EIP3009Token: caller is not the owner");
    expect(body.error?.data?.data).toMatch(/^0x08c379a0/);

    // viem retries -32603 three times (~1 s of backoff); code 3 fails at once.
    const started = performance.now();
    await expect(
      client.simulateContract({
        account: payer.address,
        address: chain.usdc,
        abi: eip3009TokenAbi,
        functionName: "mint",
        args: [payer.address, 1n],
      }),
    ).rejects.toThrow(/caller is not the owner/);
    expect(performance.now() - started).toBeLessThan(500);
  });

  it("a reverting transaction sent without estimation is mined with status reverted", async () => {
    const auth = authorization();
    const signature = await sign(auth);
    await submitBytes(auth, signature);
    const wallet = createWalletClient({ account: facilitator, chain: chain.chain, transport: http(chain.rpcUrl) });
    const hash = await wallet.writeContract({
      address: chain.usdc,
      abi: eip3009TokenAbi,
      functionName: "transferWithAuthorization",
      args: [auth.from, auth.to, auth.value, auth.validAfter, auth.validBefore, auth.nonce, signature],
      gas: 200_000n, // skips eth_estimateGas, which would refuse
    });
    const receipt = await client.waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe("reverted");
  });
});

describe("receiveWithAuthorization and cancelAuthorization", () => {
  it("receiveWithAuthorization must be called by the payee", async () => {
    const auth = authorization();
    const signature = await payer.signTypedData({
      domain: domain(),
      types: {
        ReceiveWithAuthorization: transferWithAuthorizationTypes.TransferWithAuthorization,
      },
      primaryType: "ReceiveWithAuthorization",
      message: auth,
    });
    const args = [auth.from, auth.to, auth.value, auth.validAfter, auth.validBefore, auth.nonce, signature] as const;
    const asFacilitator = createWalletClient({ account: facilitator, chain: chain.chain, transport: http(chain.rpcUrl) });
    await expect(
      asFacilitator.writeContract({ address: chain.usdc, abi: eip3009TokenAbi, functionName: "receiveWithAuthorization", args }),
    ).rejects.toThrow(/caller must be the payee/);

    const payeeBefore = await chain.balanceOf(payee.address);
    const asPayee = createWalletClient({ account: payee, chain: chain.chain, transport: http(chain.rpcUrl) });
    const hash = await asPayee.writeContract({
      address: chain.usdc,
      abi: eip3009TokenAbi,
      functionName: "receiveWithAuthorization",
      args,
    });
    expect((await client.waitForTransactionReceipt({ hash })).status).toBe("success");
    expect(await chain.balanceOf(payee.address)).toBe(payeeBefore + auth.value);
  });

  it("a canceled authorization can no longer be used", async () => {
    const auth = authorization();
    const transferSignature = await sign(auth);
    const cancelSignature = await payer.signTypedData({
      domain: domain(),
      types: cancelAuthorizationTypes,
      primaryType: "CancelAuthorization",
      message: { authorizer: auth.from, nonce: auth.nonce },
    });
    const wallet = createWalletClient({ account: facilitator, chain: chain.chain, transport: http(chain.rpcUrl) });
    const hash = await wallet.writeContract({
      address: chain.usdc,
      abi: eip3009TokenAbi,
      functionName: "cancelAuthorization",
      args: [auth.from, auth.nonce, cancelSignature],
    });
    expect((await client.waitForTransactionReceipt({ hash })).status).toBe("success");
    expect(await authorizationState(auth)).toBe(true);
    await expect(submitVrs(auth, transferSignature)).rejects.toThrow(/authorization is used or canceled/);
  });

  it("uses the typehashes of EIP-3009", async () => {
    const read = (functionName: "RECEIVE_WITH_AUTHORIZATION_TYPEHASH" | "CANCEL_AUTHORIZATION_TYPEHASH") =>
      client.readContract({ address: chain.usdc, abi: eip3009TokenAbi, functionName });
    expect(await read("RECEIVE_WITH_AUTHORIZATION_TYPEHASH")).toBe(
      keccak256(
        toHex(
          "ReceiveWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)",
        ),
      ),
    );
    expect(await read("CANCEL_AUTHORIZATION_TYPEHASH")).toBe(
      keccak256(toHex("CancelAuthorization(address authorizer,bytes32 nonce)")),
    );
  });
});

describe("startEvmChain with blockIntervalMs (a block every 500 ms, automine off)", () => {
  const INTERVAL_MS = 500;
  const holder = privateKeyToAccount(generatePrivateKey()).address;
  let slow: EvmChain;
  let slowClient: PublicClient;
  let slowStartupMs: number;

  beforeAll(async () => {
    const started = performance.now();
    slow = await startEvmChain({ accounts: 1, blockIntervalMs: INTERVAL_MS, mints: [{ to: holder, amount: 7_000_000n }] });
    slowStartupMs = performance.now() - started;
    slowClient = createPublicClient({ chain: slow.chain, transport: http(slow.rpcUrl), pollingInterval: 25 });
  }, 30_000);

  afterAll(async () => {
    await slow?.stop();
  });

  const nextBlock = () => nextBlockOf(slowClient, INTERVAL_MS);

  it("does its set-up (minting included) with automine, at once, then stops automining", async () => {
    expect(slowStartupMs).toBeLessThan(10_000);
    expect(await slow.balanceOf(holder)).toBe(7_000_000n);
    expect(await slowClient.request({ method: "hardhat_getAutomine" as never })).toBe(false);
  });

  it("does not mine a transaction at once, and mines it with the next block", async () => {
    const sender = privateKeyToAccount(slow.accounts[0] as Hex);
    const wallet = createWalletClient({ account: sender, chain: slow.chain, transport: http(slow.rpcUrl) });
    const prepared = await wallet.prepareTransactionRequest({ to: holder, value: 1n });
    const raw = await wallet.signTransaction(prepared);
    // Sent just after a block, so the next is about a whole interval away.
    await nextBlock();
    const sentAt = performance.now();
    const hash = await slowClient.sendRawTransaction({ serializedTransaction: raw });
    expect(await slowClient.request({ method: "eth_getTransactionReceipt", params: [hash] })).toBeNull();
    const receipt = await slowClient.waitForTransactionReceipt({ hash, pollingInterval: 25, timeout: 3 * INTERVAL_MS });
    const minedAfterMs = performance.now() - sentAt;
    expect(receipt.status).toBe("success");
    expect(minedAfterMs).toBeLessThan(3 * INTERVAL_MS);
    // A mint waits for its block too.
    const mintStarted = performance.now();
    await slow.mint(holder, 1n);
    expect(performance.now() - mintStarted).toBeLessThan(3 * INTERVAL_MS);
    expect(await slow.balanceOf(holder)).toBe(7_000_001n);
  }, 15_000);

  it("mines blocks at about the interval, empty or not", async () => {
    const from = await nextBlock();
    const started = performance.now();
    await new Promise((r) => setTimeout(r, 6 * INTERVAL_MS));
    const to = await slowClient.getBlockNumber({ cacheTime: 0 });
    const elapsedMs = performance.now() - started;
    const expected = elapsedMs / INTERVAL_MS;
    // Generous: this machine's cores may be busy with other work.
    expect(Number(to - from)).toBeGreaterThanOrEqual(Math.floor(expected / 2));
    expect(Number(to - from)).toBeLessThanOrEqual(Math.ceil(expected * 1.5) + 1);
  }, 15_000);
});
