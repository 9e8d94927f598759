import type { KeyObject } from "node:crypto";
import type { DidDocument } from "@board/proto";
import type { Database, Logger } from "@board/service-kit";
import { assertKeySize, importPrivateKeyObject, pendingSuccessor, publishedAt, rotationState, signingKeyAt, successorDue, type RotationPolicy } from "@board/signing-keys";
import type { ReceiptKeyRow } from "../db/schema.js";
import { ReceiptKeyStore, type KeyDecision } from "./key-store.js";

export interface ReceiptKeysOptions {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any payments schema: the store names its own table
  db: Database<any>;
  /** 32 bytes: private halves are stored encrypted with it, never in the clear. */
  keyEncryptionKey: Uint8Array;
  /** Where buyers reach the gateway: the did:web identifier is its host (and port). */
  publicBaseUrl: URL;
  now: () => Date;
  /** A key's active life. */
  rotateAfterSeconds: number;
  /** A successor is published this long before it signs (longer than a verifier's cache of the DID document). */
  publishLeadSeconds: number;
  log: Logger;
}

/** The key that signs now: its DID URL (the JWS kid) and node's key object. */
export interface ReceiptSigningKey {
  kid: string;
  privateKey: KeyObject;
}

/** A retired key stays published for good: a receipt must verify long after it was issued. */
const KEEP_PUBLISHED = Number.POSITIVE_INFINITY;
const MAX_CHECK_INTERVAL_MS = 60_000;

/**
 * did:web of a base URL (W3C did:web 3.1): the host, with a port percent-encoded; the
 * document is then at <origin>/.well-known/did.json, where the gateway serves it.
 */
export const didWebOf = (base: URL): string => `did:web:${encodeURIComponent(base.host)}`;

/**
 * The keys that sign offers and receipts: created, rotated, published and retired here,
 * shared by every replica through Postgres (payments' own keys: see docs/decisions.md).
 */
export class ReceiptKeys {
  readonly did: string;
  private readonly store: ReceiptKeyStore;
  private readonly policy: RotationPolicy;
  private keys: ReceiptKeyRow[] = [];
  private readonly privateKeys = new Map<string, KeyObject>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly opts: ReceiptKeysOptions) {
    assertKeySize(opts.keyEncryptionKey);
    if (!(opts.publishLeadSeconds > 0)) throw new Error("publishLeadSeconds must be positive");
    if (!(opts.rotateAfterSeconds > opts.publishLeadSeconds)) throw new Error("rotateAfterSeconds must exceed publishLeadSeconds");
    this.did = didWebOf(opts.publicBaseUrl);
    this.store = new ReceiptKeyStore(opts.db, opts.keyEncryptionKey);
    this.policy = { rotateAfterSeconds: opts.rotateAfterSeconds, publishLeadSeconds: opts.publishLeadSeconds };
  }

  /** Loads the keys, creating the first (signing at once) when there is none, and checks the schedule periodically (unref'd). */
  async start(): Promise<void> {
    this.stop();
    const now = this.opts.now();
    const { created, rows } = await this.store.createIf((rows) => (rows.length === 0 ? { createdAt: now, signsFrom: now } : null));
    if (created) this.logCreated(created, "first receipt signing key created");
    this.install(rows);
    await this.refresh();
    const every = Math.min(MAX_CHECK_INTERVAL_MS, Math.max(1_000, (this.opts.publishLeadSeconds * 1000) / 4));
    this.timer = setInterval(() => {
      this.refresh().catch((err: unknown) => this.opts.log.warn({ err: err instanceof Error ? err.message : String(err) }, "receipt key check failed"));
    }, every);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** The scheduled work, run now: a successor when one is due, retired keys' private halves erased, the keys reloaded. */
  async refresh(): Promise<void> {
    const now = this.opts.now();
    if (successorDue(this.keys, now, this.policy)) {
      const { created } = await this.store.createIf((rows) => (successorDue(rows, now, this.policy) ? this.successorTimes(rows, now) : null));
      if (created) this.logCreated(created, "successor receipt signing key published");
    }
    const erased = await this.store.eraseRetired(now);
    if (erased > 0) this.opts.log.info({ erased }, "retired receipt keys' private halves erased");
    this.install(await this.store.all());
  }

  /** Starts a rotation now: a successor published at once that signs after the publish lead (the waiting one, if there is one). */
  async rotate(): Promise<{ kid: string; signsFrom: Date }> {
    const now = this.opts.now();
    const { created, rows } = await this.store.createIf((rows) => (pendingSuccessor(rows, now) ? null : this.successorTimes(rows, now)));
    if (created) this.logCreated(created, "successor receipt signing key published (rotation requested)");
    this.install(rows);
    const successor = created ?? pendingSuccessor(rows, now);
    if (!successor) throw new Error("rotation left no successor key");
    return { kid: this.didUrl(successor.kid), signsFrom: successor.signsFrom };
  }

  /** The key that signs now. Throws when none can (start() has not run, or its private half is gone). */
  signing(): ReceiptSigningKey {
    const row = signingKeyAt(this.keys, this.opts.now());
    if (!row) throw new Error("no receipt signing key loaded: ReceiptKeys.start() has not run");
    let privateKey = this.privateKeys.get(row.kid);
    if (!privateKey) {
      if (row.privateKeyEnc === null) throw new Error(`receipt key ${row.kid} is retired: its private half was erased`);
      privateKey = importPrivateKeyObject(this.opts.keyEncryptionKey, row.kid, row.privateKeyEnc);
      this.privateKeys.set(row.kid, privateKey);
    }
    return { kid: this.didUrl(row.kid), privateKey };
  }

  /** Where the rotation stands now, as this replica last loaded the keys (for /metrics). */
  rotation(): ReturnType<typeof rotationState> {
    return rotationState(this.keys, this.opts.now(), this.policy);
  }

  /** The did:web document: every key ever published (newest first), each able to check what it signed. */
  didDocument(): DidDocument {
    const methods = publishedAt(this.keys, this.opts.now(), KEEP_PUBLISHED).map((k) => ({
      id: this.didUrl(k.kid),
      type: "JsonWebKey2020" as const,
      controller: this.did,
      publicKeyJwk: k.publicJwk,
    }));
    return {
      "@context": ["https://www.w3.org/ns/did/v1", "https://w3id.org/security/suites/jws-2020/v1"],
      id: this.did,
      verificationMethod: methods,
      assertionMethod: methods.map((m) => m.id),
    };
  }

  private didUrl(kid: string): string {
    return `${this.did}#${kid}`;
  }

  /** The first key signs at once; a successor after the publish lead. */
  private successorTimes(rows: ReceiptKeyRow[], now: Date): KeyDecision {
    const signsFrom = rows.length === 0 ? now : new Date(now.getTime() + this.opts.publishLeadSeconds * 1000);
    return { createdAt: now, signsFrom };
  }

  private install(rows: ReceiptKeyRow[]): void {
    this.keys = rows;
    const signable = new Set(rows.filter((r) => r.privateKeyEnc !== null).map((r) => r.kid));
    for (const kid of this.privateKeys.keys()) if (!signable.has(kid)) this.privateKeys.delete(kid);
  }

  private logCreated(row: ReceiptKeyRow, msg: string): void {
    this.opts.log.info({ kid: this.didUrl(row.kid), signs_from: row.signsFrom.toISOString() }, msg);
  }
}
