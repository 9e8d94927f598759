import { randomBytes } from "node:crypto";
import { authorizationTypes } from "@x402/evm";
import { bytesToHex, getAddress, hashTypedData, type Address, type Hex } from "viem";
import { describe, expect, it } from "vitest";
import { transferAuthorizationDigest, type Eip3009Terms } from "../../src/rails/eip3009.js";

// The digest is encoded by hand for speed; viem's hashTypedData (the library clients sign
// with) is the oracle it must agree with on every input.
const oracle = (domain: Parameters<typeof transferAuthorizationDigest>[0], a: Eip3009Terms): Hex =>
  hashTypedData({ domain, types: authorizationTypes, primaryType: "TransferWithAuthorization", message: a });

const address = (): Address => getAddress(bytesToHex(randomBytes(20)));
const uint = (bytes: number): bigint => BigInt(bytesToHex(randomBytes(bytes)));

const DOMAINS = [
  { name: "USD Coin", version: "2", chainId: 8453, verifyingContract: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913" as Address },
  { name: "USDC", version: "2", chainId: 84532, verifyingContract: "0x036CbD53842c5426634e7929541eC2318f3dCF7e" as Address },
  { name: "Token – ünïcode", version: "1", chainId: 1, verifyingContract: address() },
];

describe("transferAuthorizationDigest", () => {
  it("equals viem's hashTypedData on 300 random authorizations over three domains, and a domain seen again", () => {
    for (let i = 0; i < 300; i++) {
      const domain = DOMAINS[i % DOMAINS.length]!;
      const terms: Eip3009Terms = {
        from: address(),
        to: address(),
        value: uint(1 + (i % 32)),
        validAfter: i % 5 === 0 ? 0n : uint(4),
        validBefore: uint(1 + (i % 8)),
        nonce: bytesToHex(randomBytes(32)),
      };
      expect(transferAuthorizationDigest(domain, terms), `case ${i}`).toBe(oracle(domain, terms));
    }
  });

  it("agrees at the ends of uint256 and with lower-case addresses", () => {
    const domain = DOMAINS[0]!;
    const max = (1n << 256n) - 1n;
    for (const value of [0n, 1n, 255n, 256n, max]) {
      const terms: Eip3009Terms = { from: address().toLowerCase() as Address, to: address(), value, validAfter: max, validBefore: 0n, nonce: `0x${"00".repeat(32)}` };
      expect(transferAuthorizationDigest(domain, terms), String(value)).toBe(oracle(domain, terms));
    }
  });

  it("refuses what is not a well-formed authorization, as the oracle does", () => {
    const domain = DOMAINS[0]!;
    const good: Eip3009Terms = { from: address(), to: address(), value: 1n, validAfter: 0n, validBefore: 1n, nonce: bytesToHex(randomBytes(32)) };
    const bad: Eip3009Terms[] = [
      { ...good, value: -1n },
      { ...good, value: 1n << 256n },
      { ...good, nonce: bytesToHex(randomBytes(31)) },
      { ...good, from: bytesToHex(randomBytes(19)) as Address },
    ];
    for (const terms of bad) {
      expect(() => transferAuthorizationDigest(domain, terms)).toThrow();
      expect(() => oracle(domain, terms)).toThrow();
    }
  });
});
