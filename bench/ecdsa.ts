import { createPublicKey, randomBytes, verify } from "node:crypto";
import { generateSigningKey, importPrivateKeyObject, signEs256 } from "@board/signing-keys";
import { createJWS, type JWSSigner } from "@x402/extensions/offer-receipt";
import { keccak256, recoverAddress, toHex, type Address, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount, sign } from "viem/accounts";
import { loadNativeSecp256k1, recoverNative } from "../services/payments/src/rails/native-ecdsa.js";

export interface RecoveryBench {
  name: string;
  ops: number;
  opsPerSecond: number;
  usPerOp: number;
  /** Recoveries that did not give the signer back (must be 0). */
  wrong: number;
}

interface Case {
  digest: Hex;
  signature: Hex;
  signer: Address;
}

const CASES = 64;

/**
 * The CPU cost of one paid read's signature check, alone and on one core (this thread, one
 * recovery at a time): libsecp256k1 through recoverNative, against viem's pure-JS recoverAddress.
 */
export async function benchRecovery(secondsEach: number): Promise<RecoveryBench[]> {
  const native = loadNativeSecp256k1();
  if (!native) throw new Error("the secp256k1 native addon cannot load");
  const cases: Case[] = [];
  for (let i = 0; i < CASES; i++) {
    const key = generatePrivateKey();
    const digest = keccak256(toHex(`bench ${i}`));
    cases.push({ digest, signature: await sign({ hash: digest, privateKey: key, to: "hex" }), signer: privateKeyToAccount(key).address });
  }
  const nativeRecover = async (c: Case) => recoverNative(native, c.digest, c.signature);
  const viemRecover = (c: Case) => recoverAddress({ hash: c.digest, signature: c.signature });
  const out: RecoveryBench[] = [];
  for (const [name, recover] of [
    ["recoverNative (libsecp256k1)", nativeRecover],
    ["viem recoverAddress (pure JS)", viemRecover],
  ] as const) {
    // Warm-up: JIT and first-call costs out of the measurement.
    for (let i = 0; i < 200; i++) await recover(cases[i % CASES] as Case);
    let ops = 0;
    let wrong = 0;
    const started = performance.now();
    const end = started + secondsEach * 1000;
    while (performance.now() < end) {
      for (let i = 0; i < CASES; i++) {
        const c = cases[i] as Case;
        if ((await recover(c)) !== c.signer) wrong++;
      }
      ops += CASES;
    }
    const seconds = (performance.now() - started) / 1000;
    out.push({ name, ops, opsPerSecond: ops / seconds, usPerOp: (seconds * 1e6) / ops, wrong });
  }
  return out;
}

/**
 * The CPU cost a paid read's signed receipt adds (x402 offer-receipt): x402's createJWS over a
 * receipt payload of the shape payments signs, with ES256 through node's own key object, as
 * services/payments/src/receipts/offer-receipts.ts does. Every 64th signature is verified
 * (`wrong` counts those that do not verify).
 */
export async function benchReceiptSigning(seconds: number): Promise<RecoveryBench> {
  const key = await generateSigningKey(KEK);
  const privateKey = importPrivateKeyObject(KEK, key.kid, key.privateKeyEnc);
  const publicKey = createPublicKey({ key: key.publicJwk, format: "jwk" });
  const signer: JWSSigner = { kid: `did:web:bench#${key.kid}`, format: "jws", algorithm: "ES256", sign: (bytes) => Promise.resolve(signEs256(privateKey, bytes)) };
  const payload = (i: number) => ({
    version: 1,
    network: "eip155:8453",
    resourceUrl: "https://board.example/api/board/regime",
    payer: "0x857b06519E91e3A54538791bDbb0E22373e36b66",
    issuedAt: 1_764_000_000 + i,
    transaction: keccak256(toHex(`tx ${i}`)),
    amount: "5000",
    asset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
    contentHash: "a".repeat(64),
    commitment: "b".repeat(64),
    proofSeq: 1234,
  });
  for (let i = 0; i < 200; i++) await createJWS(payload(i), signer);
  let ops = 0;
  let wrong = 0;
  const started = performance.now();
  const end = started + seconds * 1000;
  while (performance.now() < end) {
    for (let i = 0; i < 64; i++) {
      const jws = await createJWS(payload(ops + i), signer);
      if (i === 0) {
        const [h, p, s] = jws.split(".") as [string, string, string];
        if (!verify("sha256", Buffer.from(`${h}.${p}`), { key: publicKey, dsaEncoding: "ieee-p1363" }, Buffer.from(s, "base64url"))) wrong++;
      }
    }
    ops += 64;
  }
  const elapsed = (performance.now() - started) / 1000;
  return { name: "receipt signing (x402 createJWS, ES256, node crypto)", ops, opsPerSecond: ops / elapsed, usPerOp: (elapsed * 1e6) / ops, wrong };
}

/** A throwaway key encryption key: the bench's receipt key lives only in this process. */
const KEK = randomBytes(32);
