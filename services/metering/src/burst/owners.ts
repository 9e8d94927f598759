/**
 * Which metering replica owns a burst bucket: rendezvous (highest random weight) hashing of
 * the bucket's key over the live members. Every replica with the same members picks the same
 * owner, with no coordination; a member leaving moves only its own keys (spread over the
 * rest), a member joining takes about 1/N of the keys from the others and moves nothing else.
 *
 * Time is passed in (milliseconds of a monotonic clock), so the rules are pure.
 */
export class BurstOwners {
  private readonly peers = new Map<string, Peer>();
  /** The members that own keys now: this replica and every peer heard lately and not suspected. */
  private ring: Member[];

  constructor(
    readonly self: string,
    /** A peer not heard from for this long is gone (a few missed heartbeats). */
    private readonly expiryMs: number,
  ) {
    this.ring = [{ id: self, hash: hashString(self) }];
  }

  /** A peer announced itself; true if it is new (it did not know of us, or we of it). */
  heard(id: string, nowMs: number): boolean {
    if (id === this.self) return false;
    const peer = this.peers.get(id);
    if (peer) {
      peer.lastSeen = nowMs;
      // A suspected peer is back only once its suspicion ran out: an owner that timed out may
      // still heartbeat while it is overloaded, and flapping owners would reset buckets.
      if (peer.suspectedUntil !== 0 && peer.suspectedUntil <= nowMs) {
        peer.suspectedUntil = 0;
        this.rebuild();
      }
      return false;
    }
    this.peers.set(id, { hash: hashString(id), lastSeen: nowMs, suspectedUntil: 0 });
    this.rebuild();
    return true;
  }

  /** A peer said it is leaving. */
  left(id: string): boolean {
    if (!this.peers.delete(id)) return false;
    this.rebuild();
    return true;
  }

  /** A peer did not answer a take: its keys go to the others until it has been heard again after `expiryMs`. */
  suspect(id: string, nowMs: number): boolean {
    const peer = this.peers.get(id);
    if (!peer || peer.suspectedUntil > nowMs) return false;
    peer.suspectedUntil = nowMs + this.expiryMs;
    this.rebuild();
    return true;
  }

  /** Forgets peers silent for longer than the expiry; returns their ids. */
  expire(nowMs: number): string[] {
    const gone: string[] = [];
    for (const [id, peer] of this.peers) {
      if (nowMs - peer.lastSeen > this.expiryMs) {
        this.peers.delete(id);
        gone.push(id);
      }
    }
    if (gone.length > 0) this.rebuild();
    return gone;
  }

  /** The member whose bucket `key` is. */
  ownerOf(key: string): string {
    const ring = this.ring;
    if (ring.length === 1) return this.self;
    const k = hashString(key);
    let best = ring[0]!;
    let bestScore = score(k, best.hash);
    for (let i = 1; i < ring.length; i++) {
      const m = ring[i]!;
      const s = score(k, m.hash);
      // Ties (1 in 2^32) go to the smaller id, so every replica breaks them alike.
      if (s > bestScore || (s === bestScore && m.id < best.id)) {
        best = m;
        bestScore = s;
      }
    }
    return best.id;
  }

  /** The owning members, this replica included, sorted. */
  get members(): string[] {
    return this.ring.map((m) => m.id).sort();
  }

  private rebuild(): void {
    const ring: Member[] = [{ id: this.self, hash: hashString(this.self) }];
    for (const [id, peer] of this.peers) if (peer.suspectedUntil === 0) ring.push({ id, hash: peer.hash });
    this.ring = ring;
  }
}

interface Member {
  id: string;
  hash: number;
}

interface Peer {
  hash: number;
  lastSeen: number;
  /** 0, or until when the peer owns no keys. */
  suspectedUntil: number;
}

/** FNV-1a over the UTF-16 code units: the same number in every replica, for any string. */
export function hashString(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** The weight of a (key, member) pair: murmur3's finalizer mixes both hashes so each pair ranks independently. */
function score(key: number, member: number): number {
  let h = (key ^ Math.imul(member, 0x9e3779b1)) >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
