import { recoverAddress, keccak256, toHex, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { loadNativeSecp256k1, recoverNative, withNativeEcdsa } from "../../src/rails/native-ecdsa.js";
import type { FacilitatorEvmSigner } from "@x402/evm";

const native = loadNativeSecp256k1();

describe("native ECDSA recovery", () => {
  it("loads libsecp256k1's native addon (not the pure-JS fallback)", () => {
    expect(native).not.toBeNull();
  });

  it("recovers exactly the address viem recovers, and nobody for a damaged signature", async () => {
    for (let i = 0; i < 40; i++) {
      const account = privateKeyToAccount(generatePrivateKey());
      const digest = keccak256(toHex(`message ${i} ${Math.random()}`));
      const signature = await account.sign({ hash: digest });
      expect(recoverNative(native!, digest, signature)).toBe(account.address);
      expect(await recoverAddress({ hash: digest, signature })).toBe(account.address);
      const damaged = `${signature.slice(0, 10)}${signature[10] === "0" ? "1" : "0"}${signature.slice(11)}` as Hex;
      expect(recoverNative(native!, digest, damaged)).not.toBe(account.address);
      expect(recoverNative(native!, digest, signature.slice(0, 130) as Hex)).toBeNull();
    }
  });

  it("answers isValidSignature for accounts without code, and defers to the chain for contracts", async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const digest = keccak256(toHex("x"));
    const signature = await account.sign({ hash: digest });
    const onChain: string[] = [];
    const base = {
      getCode: async ({ address }: { address: string }) => (address === "0x000000000000000000000000000000000000c0de" ? "0x6001" : "0x"),
      readContract: async (args: { address: string }) => {
        onChain.push(args.address);
        return "0x1626ba7e";
      },
    } as unknown as FacilitatorEvmSigner;
    const signer = withNativeEcdsa(base, native!);
    const ask = (address: `0x${string}`, sig: Hex) =>
      signer.readContract({ address, abi: [], functionName: "isValidSignature", args: [digest, sig] });
    expect(await signer.getCode({ address: account.address })).not.toBe("0x");
    expect(await ask(account.address, signature)).toBe("0x1626ba7e");
    expect(await ask(privateKeyToAccount(generatePrivateKey()).address, signature)).toBe("0xffffffff");
    expect(onChain).toEqual([]);
    expect(await ask("0x000000000000000000000000000000000000c0de", signature)).toBe("0x1626ba7e");
    expect(onChain).toEqual(["0x000000000000000000000000000000000000c0de"]);
  });
});
