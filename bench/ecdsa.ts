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
