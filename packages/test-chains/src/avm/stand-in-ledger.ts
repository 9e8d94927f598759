import algosdk, { type SignedTransaction } from "algosdk";
import type { StandInTxn } from "./stand-in-wire.js";
import { reject, type StandInRejection } from "./stand-in-rejection.js";
import {
  ALGORAND_MAINNET_GENESIS_HASH,
  ALGORAND_MAINNET_GENESIS_ID,
  ALGORAND_USDC_ASSET_ID,
  MIN_BALANCE,
  MIN_BALANCE_PER_ASSET,
} from "./stand-in-network.js";

/**
 * The algod stand-in's ledger: µAlgo balances, USDC holdings (opt-in required), rekeys, the
 * current round and every committed transaction. `evalGroup` runs algod's eval-stage checks on a
 * scratch copy; only `commit` writes it back, so a group applies all or nothing.
 */

export interface AccountState {
  microAlgos: bigint;
  /** Asset id -> base units; an entry exists once the account opted in. */
  assets: Map<bigint, bigint>;
  authAddr?: string;
}

/** A group the stand-in committed. */
export interface AcceptedGroup {
  /** The round the group was confirmed in. */
  round: bigint;
  /** base64 group id; undefined for a lone transaction without one. */
  groupId: string | undefined;
  txIds: readonly string[];
  transactions: readonly SignedTransaction[];
  /** Signed transactions as submitted (re-POST them to test duplicate refusal). */
  raw: readonly Uint8Array[];
}

export interface CommittedTxn {
  round: bigint;
  stxn: SignedTransaction;
}

export interface EvalResult {
  round: bigint;
  accounts: Map<string, AccountState>;
}

const USDC = BigInt(ALGORAND_USDC_ASSET_ID);
const GENESIS_HASH = Buffer.from(ALGORAND_MAINNET_GENESIS_HASH, "base64");

export class StandInLedger {
  private readonly accounts = new Map<string, AccountState>();
  private readonly committed = new Map<string, CommittedTxn>();
  private readonly groups: AcceptedGroup[] = [];
  private lastRoundAt = Date.now();

  constructor(private round: bigint) {}

  get lastRound(): bigint {
    return this.round;
  }

  /** Milliseconds since the last round was produced. */
  get sinceLastRoundMs(): number {
    return Date.now() - this.lastRoundAt;
  }

  /** Produces `count` empty rounds. */
  advance(count: bigint): bigint {
    this.round += count;
    this.lastRoundAt = Date.now();
    return this.round;
  }

  account(address: string): AccountState {
    return cloneAccount(this.accounts.get(address));
  }

  transaction(txId: string): CommittedTxn | undefined {
    return this.committed.get(txId);
  }

  accepted(): readonly AcceptedGroup[] {
    return [...this.groups];
  }

  /** Genesis-style edit used by the test helpers (fund, opt-in, mint); no round is produced. */
  setAccount(address: string, state: AccountState): void {
    this.accounts.set(address, cloneAccount(state));
  }

  /** algod's eval-stage checks for the next round, on a scratch copy of the touched accounts. */
  evalGroup(txns: readonly StandInTxn[]): EvalResult | StandInRejection {
    const round = this.round + 1n;
    const scratch = new Map<string, AccountState>();
    const get = (address: string): AccountState => {
      let state = scratch.get(address);
      if (!state) {
        state = cloneAccount(this.accounts.get(address));
        scratch.set(address, state);
      }
      return state;
    };
    const groupProblem = checkGroupId(txns);
    if (groupProblem) return groupProblem;
    const seen = new Set<string>();
    for (const [i, t] of txns.entries()) {
      const problem =
        checkGenesis(t) ??
        checkAlive(t, round) ??
        (this.committed.has(t.txId) || seen.has(t.txId)
          ? reject("already_in_ledger", "eval", `transaction already in ledger: ${t.txId}`)
          : undefined) ??
        checkAuthorizer(t, get) ??
        apply(t, get);
      if (problem) return { ...problem, groupIndex: i };
      seen.add(t.txId);
    }
    return { round, accounts: scratch };
  }

  /** Writes an evaluated group into a new round. */
  commit(txns: readonly StandInTxn[], result: EvalResult): AcceptedGroup {
    for (const [address, state] of result.accounts) this.accounts.set(address, state);
    this.round = result.round;
    this.lastRoundAt = Date.now();
    for (const t of txns) this.committed.set(t.txId, { round: result.round, stxn: t.stxn });
    const group = txns[0]?.stxn.txn.group;
    const accepted: AcceptedGroup = {
      round: result.round,
      groupId: group && group.some((b) => b !== 0) ? Buffer.from(group).toString("base64") : undefined,
      txIds: txns.map((t) => t.txId),
      transactions: txns.map((t) => t.stxn),
      raw: txns.map((t) => t.bytes),
    };
    this.groups.push(accepted);
    return accepted;
  }
}

export function minBalance(state: AccountState): bigint {
  return MIN_BALANCE + MIN_BALANCE_PER_ASSET * BigInt(state.assets.size);
}

/** An account with no µAlgos and no holdings does not exist, and needs no minimum balance. */
export function isEmpty(state: AccountState): boolean {
  return state.microAlgos === 0n && state.assets.size === 0 && state.authAddr === undefined;
}

function cloneAccount(state: AccountState | undefined): AccountState {
  if (!state) return { microAlgos: 0n, assets: new Map() };
  const copy: AccountState = { microAlgos: state.microAlgos, assets: new Map(state.assets) };
  if (state.authAddr !== undefined) copy.authAddr = state.authAddr;
  return copy;
}

function hasGroup(t: StandInTxn): boolean {
  const g = t.stxn.txn.group;
  return g !== undefined && g.some((b) => b !== 0);
}

/** Every transaction carries the group id computed over the whole group, or (alone) none at all. */
function checkGroupId(txns: readonly StandInTxn[]): StandInRejection | undefined {
  if (txns.length === 1 && !hasGroup(txns[0] as StandInTxn)) return undefined;
  // computeGroupID hashes each transaction as it is, so hash copies with the group field cleared.
  const cleared = txns.map((t) => {
    const copy = algosdk.decodeUnsignedTransaction(algosdk.encodeUnsignedTransaction(t.stxn.txn));
    copy.group = undefined;
    return copy;
  });
  const expected = Buffer.from(algosdk.computeGroupID(cleared));
  for (const [i, t] of txns.entries()) {
    const got = t.stxn.txn.group ? Buffer.from(t.stxn.txn.group) : Buffer.alloc(32);
    if (!got.equals(expected)) {
      return reject(
        "group_id_mismatch",
        "eval",
        `transaction ${t.txId}: incomplete group: ${got.toString("base64")} != ${expected.toString("base64")}`,
        i,
      );
    }
  }
  return undefined;
}

function checkGenesis({ stxn, txId }: StandInTxn): StandInRejection | undefined {
  const { genesisHash, genesisID } = stxn.txn;
  if (!genesisHash || !Buffer.from(genesisHash).equals(GENESIS_HASH)) {
    const got = genesisHash ? Buffer.from(genesisHash).toString("base64") : "(missing)";
    return reject("genesis_mismatch", "eval", `transaction ${txId}: tx.GenesisHash <${got}> does not match <${ALGORAND_MAINNET_GENESIS_HASH}>`);
  }
  if (genesisID && genesisID !== ALGORAND_MAINNET_GENESIS_ID) {
    return reject("genesis_mismatch", "eval", `transaction ${txId}: tx.GenesisID <${genesisID}> does not match <${ALGORAND_MAINNET_GENESIS_ID}>`);
  }
  return undefined;
}

function checkAlive({ stxn, txId }: StandInTxn, round: bigint): StandInRejection | undefined {
  const { firstValid, lastValid } = stxn.txn;
  if (round < firstValid || round > lastValid) {
    return reject("txn_dead", "eval", `transaction ${txId}: txn dead: round ${round} outside of ${firstValid}--${lastValid}`);
  }
  return undefined;
}

/** The signature must come from the key the sender's account is (re)keyed to. */
function checkAuthorizer({ stxn, txId }: StandInTxn, get: (a: string) => AccountState): StandInRejection | undefined {
  const sender = stxn.txn.sender.toString();
  const expected = get(sender).authAddr ?? sender;
  const actual = (stxn.sgnr ?? stxn.txn.sender).toString();
  if (stxn.sig && actual !== expected) {
    return reject("wrong_authorizer", "eval", `transaction ${txId}: should have been authorized by ${expected} but was actually authorized by ${actual}`);
  }
  return undefined;
}

function apply({ stxn, txId }: StandInTxn, get: (a: string) => AccountState): StandInRejection | undefined {
  const txn = stxn.txn;
  const sender = txn.sender.toString();
  const from = get(sender);
  const touched = [sender];

  let spend = txn.fee;
  if (txn.payment) spend += txn.payment.amount;
  if (from.microAlgos < spend) {
    return reject("overspend", "eval", `transaction ${txId}: overspend (account ${sender}, balance ${from.microAlgos} microAlgos, tried to spend ${spend})`);
  }
  from.microAlgos -= txn.fee;

  if (txn.payment) {
    const receiver = txn.payment.receiver.toString();
    from.microAlgos -= txn.payment.amount;
    get(receiver).microAlgos += txn.payment.amount;
    touched.push(receiver);
  }

  if (txn.assetTransfer) {
    const { assetIndex, amount } = txn.assetTransfer;
    const receiver = txn.assetTransfer.receiver.toString();
    if (assetIndex !== USDC) {
      return reject("unknown_asset", "eval", `transaction ${txId}: asset ${assetIndex} does not exist or has been deleted`);
    }
    const to = get(receiver);
    const isOptIn = receiver === sender && amount === 0n && !from.assets.has(assetIndex);
    if (isOptIn) {
      from.assets.set(assetIndex, 0n);
    } else {
      const held = from.assets.get(assetIndex);
      if (held === undefined) return reject("asset_not_opted_in", "eval", `transaction ${txId}: asset ${assetIndex} missing from ${sender}`);
      const receiverHeld = to.assets.get(assetIndex);
      if (receiverHeld === undefined) return reject("asset_not_opted_in", "eval", `transaction ${txId}: asset ${assetIndex} missing from ${receiver}`);
      if (held < amount) {
        return reject("asset_underflow", "eval", `transaction ${txId}: underflow on subtracting ${amount} from sender amount ${held}`);
      }
      from.assets.set(assetIndex, held - amount);
      to.assets.set(assetIndex, (to.assets.get(assetIndex) ?? 0n) + amount);
    }
    touched.push(receiver);
  }

  if (txn.rekeyTo) {
    const target = txn.rekeyTo.toString();
    if (target === sender) delete from.authAddr;
    else from.authAddr = target;
  }

  for (const address of touched) {
    const state = get(address);
    if (!isEmpty(state) && state.microAlgos < minBalance(state)) {
      return reject(
        "below_min_balance",
        "eval",
        `transaction ${txId}: account ${address} balance ${state.microAlgos} below min ${minBalance(state)} (${state.assets.size} assets)`,
      );
    }
  }
  return undefined;
}
