import { randomBytes } from "node:crypto";
import { createPublicClient, createWalletClient, domainSeparator, http, parseAbi, toHex, type PublicClient } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, describe, expect, it } from "vitest";
import { BASE_USDC_ADDRESS, eip3009TokenAbi, MULTICALL3_ADDRESS, startEvmChain, type EvmChain } from "../src/evm/index.js";

// The chains a misconfigured Base RPC may serve, as the payments tests need them: another chain
// id, no Multicall3, a token signing in another EIP-712 domain (reported by EIP-5267).

const eip5267 = parseAbi([
  "function eip712Domain() view returns (bytes1 fields, string name, string version, uint256 chainId, address verifyingContract, bytes32 salt, uint256[] extensions)",
]);

const chains: EvmChain[] = [];
afterAll(async () => {
  await Promise.all(chains.map((c) => c.stop()));
});

async function start(opts: Parameters<typeof startEvmChain>[0]): Promise<{ chain: EvmChain; client: PublicClient }> {
  const chain = await startEvmChain(opts);
  chains.push(chain);
  return { chain, client: createPublicClient({ chain: chain.chain, transport: http(chain.rpcUrl), pollingInterval: 50 }) };
}

describe("startEvmChain variants", () => {
  it("the default chain: Base's id, Multicall3 at its address, a token in Base USDC's domain without eip712Domain()", async () => {
    const { chain, client } = await start({ accounts: 1 });
    expect(chain.chainId).toBe(8453);
    expect(await client.getChainId()).toBe(8453);
    expect(await client.getCode({ address: MULTICALL3_ADDRESS })).toMatch(/^0x[0-9a-f]{100,}$/);
    const domain = { name: "USD Coin", version: "2", chainId: 8453, verifyingContract: BASE_USDC_ADDRESS } as const;
    expect(await client.readContract({ address: chain.usdc, abi: eip3009TokenAbi, functionName: "DOMAIN_SEPARATOR" })).toBe(domainSeparator({ domain }));
    await expect(client.readContract({ address: chain.usdc, abi: eip5267, functionName: "eip712Domain" })).rejects.toThrow();
  });

  it("another chain id, no Multicall3: the token is there, and signs for its own chain id", async () => {
    const { chain, client } = await start({ accounts: 1, chainId: 31337, multicall3: false });
    expect(chain.chainId).toBe(31337);
    expect(await client.getChainId()).toBe(31337);
    expect(await client.getCode({ address: MULTICALL3_ADDRESS })).toBeUndefined();
    const domain = { name: "USD Coin", version: "2", chainId: 31337, verifyingContract: BASE_USDC_ADDRESS } as const;
    expect(await client.readContract({ address: chain.usdc, abi: eip3009TokenAbi, functionName: "DOMAIN_SEPARATOR" })).toBe(domainSeparator({ domain }));
  });

  it("a token in another domain reports it by name(), version() and eip712Domain(), and moves USDC for authorizations signed in it", async () => {
    const { chain, client } = await start({ accounts: 1, usdcDomain: { name: "USDC", version: "2" } });
    expect(await client.readContract({ address: chain.usdc, abi: eip3009TokenAbi, functionName: "name" })).toBe("USDC");
    expect(await client.readContract({ address: chain.usdc, abi: eip3009TokenAbi, functionName: "version" })).toBe("2");
    const [fields, name, version, chainId, verifyingContract, salt, extensions] = await client.readContract({ address: chain.usdc, abi: eip5267, functionName: "eip712Domain" });
    expect({ fields, name, version, chainId, verifyingContract, salt, extensions }).toEqual({
      fields: "0x0f",
      name: "USDC",
      version: "2",
      chainId: 8453n,
      verifyingContract: BASE_USDC_ADDRESS,
      salt: `0x${"0".repeat(64)}`,
      extensions: [],
    });

    // Still an EIP-3009 token: an authorization signed in its own domain moves USDC.
    const payer = privateKeyToAccount(generatePrivateKey());
    const payTo = privateKeyToAccount(generatePrivateKey()).address;
    await chain.mint(payer.address, 10_000n);
    const message = { from: payer.address, to: payTo, value: 5_000n, validAfter: 0n, validBefore: BigInt(Math.floor(Date.now() / 1000) + 600), nonce: toHex(randomBytes(32)) };
    const signature = await payer.signTypedData({
      domain: { name: "USDC", version: "2", chainId: 8453, verifyingContract: chain.usdc },
      types: {
        TransferWithAuthorization: [
          { name: "from", type: "address" },
          { name: "to", type: "address" },
          { name: "value", type: "uint256" },
          { name: "validAfter", type: "uint256" },
          { name: "validBefore", type: "uint256" },
          { name: "nonce", type: "bytes32" },
        ],
      },
      primaryType: "TransferWithAuthorization",
      message,
    });
    const relayer = createWalletClient({ account: privateKeyToAccount(chain.accounts[0]!), chain: chain.chain, transport: http(chain.rpcUrl) });
    const hash = await relayer.writeContract({
      address: chain.usdc,
      abi: eip3009TokenAbi,
      functionName: "transferWithAuthorization",
      args: [message.from, message.to, message.value, message.validAfter, message.validBefore, message.nonce, signature],
    });
    expect((await client.waitForTransactionReceipt({ hash })).status).toBe("success");
    expect(await chain.balanceOf(payTo)).toBe(5_000n);
  });
});
