import { address, getAddressEncoder, getBase58Codec, getProgramDerivedAddress, type Address } from "@solana/kit";
import type { Instruction } from "./wire.js";

/**
 * SPL Token account layouts and the few instructions the chain sends itself, plus the
 * `jsonParsed` renderings a real RPC node gives token accounts and mints.
 */

export const SYSTEM_PROGRAM = "11111111111111111111111111111111";
export const TOKEN_PROGRAM = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA";
export const TOKEN_2022_PROGRAM = "TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb";
export const ASSOCIATED_TOKEN_PROGRAM = "ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL";

export const MINT_SIZE = 82;
export const TOKEN_ACCOUNT_SIZE = 165;

const base58 = getBase58Codec();
const addressEncoder = getAddressEncoder();

/** Token instruction tags (spl-token's TokenInstruction enum). */
const IX_TRANSFER = 3;
const IX_MINT_TO = 7;
const IX_TRANSFER_CHECKED = 12;
/** AssociatedTokenAccountInstruction::CreateIdempotent. */
const IX_ATA_CREATE_IDEMPOTENT = 1;

export interface MintState {
  mintAuthority: string | null;
  supply: bigint;
  decimals: number;
  isInitialized: boolean;
  freezeAuthority: string | null;
}

export interface TokenAccountState {
  mint: string;
  owner: string;
  amount: bigint;
  delegate: string | null;
  state: "uninitialized" | "initialized" | "frozen";
  isNative: bigint | null;
  delegatedAmount: bigint;
  closeAuthority: string | null;
}

export function encodeMint(mint: MintState): Uint8Array {
  const out = new Uint8Array(MINT_SIZE);
  const view = new DataView(out.buffer);
  writeOptionalKey(out, 0, mint.mintAuthority);
  view.setBigUint64(36, mint.supply, true);
  out[44] = mint.decimals;
  out[45] = mint.isInitialized ? 1 : 0;
  writeOptionalKey(out, 46, mint.freezeAuthority);
  return out;
}

export function decodeMint(data: Uint8Array): MintState | null {
  if (data.length !== MINT_SIZE) return null;
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  return {
    mintAuthority: readOptionalKey(data, 0),
    supply: view.getBigUint64(36, true),
    decimals: data[44] ?? 0,
    isInitialized: data[45] === 1,
    freezeAuthority: readOptionalKey(data, 46),
  };
}

export function decodeTokenAccount(data: Uint8Array): TokenAccountState | null {
  if (data.length !== TOKEN_ACCOUNT_SIZE) return null;
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const state = (["uninitialized", "initialized", "frozen"] as const)[data[108] ?? 0];
  if (state === undefined) return null;
  return {
    mint: base58.decode(data.subarray(0, 32)),
    owner: base58.decode(data.subarray(32, 64)),
    amount: view.getBigUint64(64, true),
    delegate: readOptionalKey(data, 72),
    state,
    isNative: view.getUint32(109, true) === 1 ? view.getBigUint64(113, true) : null,
    delegatedAmount: view.getBigUint64(121, true),
    closeAuthority: readOptionalKey(data, 129),
  };
}

function writeOptionalKey(out: Uint8Array, offset: number, key: string | null): void {
  if (key === null) return;
  new DataView(out.buffer).setUint32(offset, 1, true);
  out.set(base58.encode(key), offset + 4);
}

function readOptionalKey(data: Uint8Array, offset: number): string | null {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  return view.getUint32(offset, true) === 1 ? base58.decode(data.subarray(offset + 4, offset + 36)) : null;
}

export function isTokenProgram(owner: string): boolean {
  return owner === TOKEN_PROGRAM || owner === TOKEN_2022_PROGRAM;
}

export async function associatedTokenAddress(owner: string, mint: string, tokenProgram = TOKEN_PROGRAM): Promise<Address> {
  const [ata] = await getProgramDerivedAddress({
    programAddress: address(ASSOCIATED_TOKEN_PROGRAM),
    seeds: [addressEncoder.encode(address(owner)), addressEncoder.encode(address(tokenProgram)), addressEncoder.encode(address(mint))],
  });
  return ata;
}

export function createAtaIdempotentInstruction(payer: string, ata: string, owner: string, mint: string): Instruction {
  return {
    programId: ASSOCIATED_TOKEN_PROGRAM,
    accounts: [
      { address: payer, signer: true, writable: true },
      { address: ata, signer: false, writable: true },
      { address: owner, signer: false, writable: false },
      { address: mint, signer: false, writable: false },
      { address: SYSTEM_PROGRAM, signer: false, writable: false },
      { address: TOKEN_PROGRAM, signer: false, writable: false },
    ],
    data: Uint8Array.of(IX_ATA_CREATE_IDEMPOTENT),
  };
}

export function mintToInstruction(mint: string, destination: string, authority: string, amount: bigint): Instruction {
  const data = new Uint8Array(9);
  data[0] = IX_MINT_TO;
  new DataView(data.buffer).setBigUint64(1, amount, true);
  return {
    programId: TOKEN_PROGRAM,
    accounts: [
      { address: mint, signer: false, writable: true },
      { address: destination, signer: false, writable: true },
      { address: authority, signer: true, writable: false },
    ],
    data,
  };
}

export interface UiTokenAmount {
  amount: string;
  decimals: number;
  uiAmount: number;
  uiAmountString: string;
}

export function uiTokenAmount(amount: bigint, decimals: number): UiTokenAmount {
  const scale = 10n ** BigInt(decimals);
  const whole = amount / scale;
  const fraction = (amount % scale).toString().padStart(decimals, "0").replace(/0+$/, "");
  const uiAmountString = fraction === "" ? whole.toString() : `${whole}.${fraction}`;
  return { amount: amount.toString(), decimals, uiAmount: Number(uiAmountString), uiAmountString };
}

function programName(owner: string): string {
  return owner === TOKEN_2022_PROGRAM ? "spl-token-2022" : "spl-token";
}

/**
 * The `jsonParsed` data of a token account or mint, or null where a real node would fall
 * back to base64 (other programs, and Token-2022 accounts with extensions, not parsed here).
 * `decimalsOf` looks up a token account's mint.
 */
export function parseTokenAccountData(
  owner: string,
  data: Uint8Array,
  decimalsOf: (mint: string) => number | null,
): { program: string; parsed: { type: string; info: Record<string, unknown> }; space: number } | null {
  if (!isTokenProgram(owner)) return null;
  const mint = decodeMint(data);
  if (mint) {
    return {
      program: programName(owner),
      parsed: {
        type: "mint",
        info: {
          decimals: mint.decimals,
          freezeAuthority: mint.freezeAuthority,
          isInitialized: mint.isInitialized,
          mintAuthority: mint.mintAuthority,
          supply: mint.supply.toString(),
        },
      },
      space: data.length,
    };
  }
  const account = decodeTokenAccount(data);
  const decimals = account ? decimalsOf(account.mint) : null;
  if (!account || decimals === null || account.state === "uninitialized") return null;
  const info: Record<string, unknown> = {
    isNative: account.isNative !== null,
    mint: account.mint,
    owner: account.owner,
    state: account.state,
    tokenAmount: uiTokenAmount(account.amount, decimals),
  };
  if (account.delegate !== null) {
    info["delegate"] = account.delegate;
    info["delegatedAmount"] = uiTokenAmount(account.delegatedAmount, decimals);
  }
  if (account.closeAuthority !== null) info["closeAuthority"] = account.closeAuthority;
  if (account.isNative !== null) info["rentExemptReserve"] = uiTokenAmount(account.isNative, 9);
  return { program: programName(owner), parsed: { type: "account", info }, space: data.length };
}

/**
 * jsonParsed form of a token-program instruction for the kinds a payment makes (transfer,
 * transferChecked, mintTo); null for the rest, which a node then shows partially decoded.
 */
export function parseTokenInstruction(
  programId: string,
  accounts: string[],
  data: Uint8Array,
): { program: string; programId: string; parsed: { type: string; info: Record<string, unknown> } } | null {
  if (!isTokenProgram(programId) || data.length < 9) return null;
  const amount = new DataView(data.buffer, data.byteOffset, data.byteLength).getBigUint64(1, true);
  const wrap = (type: string, info: Record<string, unknown>) => ({
    program: programName(programId),
    programId,
    parsed: { type, info },
  });
  const [a0, a1, a2, a3] = accounts;
  switch (data[0]) {
    case IX_TRANSFER:
      if (a2 === undefined) return null;
      return wrap("transfer", { amount: amount.toString(), authority: a2, destination: a1, source: a0 });
    case IX_MINT_TO:
      if (a2 === undefined) return null;
      return wrap("mintTo", { account: a1, amount: amount.toString(), mint: a0, mintAuthority: a2 });
    case IX_TRANSFER_CHECKED: {
      const decimals = data[9];
      if (a3 === undefined || a1 === undefined || decimals === undefined) return null;
      return wrap("transferChecked", {
        authority: a3,
        destination: a2,
        mint: a1,
        source: a0,
        tokenAmount: uiTokenAmount(amount, decimals),
      });
    }
    default:
      return null;
  }
}
