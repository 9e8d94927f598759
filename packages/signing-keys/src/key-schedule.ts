/** What the schedule needs to know of a key. */
export interface ScheduledKey {
  kid: string;
  signsFrom: Date;
  retiredAt: Date | null;
}

export interface RotationPolicy {
  /** A signing key's active life. */
  rotateAfterSeconds: number;
  /** How long a successor is published before it signs. */
  publishLeadSeconds: number;
}

const byStart = (a: ScheduledKey, b: ScheduledKey) => a.signsFrom.getTime() - b.signsFrom.getTime();

/**
 * The key that signs at `at`: the newest that has started signing. If none has (this
 * replica's clock is behind the one that made the first key), the oldest key, which is
 * published and about to sign anyway.
 */
export function signingKeyAt<K extends ScheduledKey>(keys: readonly K[], at: Date): K | undefined {
  const sorted = [...keys].sort(byStart);
  const started = sorted.filter((k) => k.signsFrom.getTime() <= at.getTime());
  return started.at(-1) ?? sorted[0];
}

/** The successor published ahead of signing, if one exists. */
export function pendingSuccessor<K extends ScheduledKey>(keys: readonly K[], at: Date): K | undefined {
  const signing = signingKeyAt(keys, at);
  if (!signing) return undefined;
  return [...keys].sort(byStart).find((k) => k.signsFrom.getTime() > signing.signsFrom.getTime());
}

/**
 * The keys published at `at`: every key not yet retired (the signing key and a successor
 * not yet signing), and retired keys for `keepSeconds` after retirement: as long as what
 * they signed must still verify (an access token's lifetime; forever for receipts).
 * Newest first.
 */
export function publishedAt<K extends ScheduledKey>(keys: readonly K[], at: Date, keepSeconds: number): K[] {
  return keys.filter((k) => !outlived(k, at, keepSeconds)).sort((a, b) => byStart(b, a));
}

/** Keys no longer published: nothing they signed needs verifying any more, so they may be deleted. */
export function removableAt<K extends ScheduledKey>(keys: readonly K[], at: Date, keepSeconds: number): K[] {
  return keys.filter((k) => outlived(k, at, keepSeconds));
}

/**
 * Whether a successor must be created now: there is no key at all, or the signing key
 * has signed for its active life minus the publish lead and no successor exists yet.
 */
export function successorDue(keys: readonly ScheduledKey[], at: Date, policy: RotationPolicy): boolean {
  const signing = signingKeyAt(keys, at);
  if (!signing) return true;
  if (pendingSuccessor(keys, at)) return false;
  const age = (at.getTime() - signing.signsFrom.getTime()) / 1000;
  return age >= policy.rotateAfterSeconds - policy.publishLeadSeconds;
}

function outlived(k: ScheduledKey, at: Date, keepSeconds: number): boolean {
  return k.retiredAt !== null && k.retiredAt.getTime() + keepSeconds * 1000 <= at.getTime();
}

/**
 * Where the rotation stands at `at`, for monitoring: since when the signing key signs, when
 * its successor is due to be published and to take over, and whether one is published.
 */
export function rotationState(
  keys: readonly ScheduledKey[],
  at: Date,
  policy: RotationPolicy,
): { signingSince: Date; rotationDueAt: Date; successorDueAt: Date; successorPublished: boolean } | null {
  const signing = signingKeyAt(keys, at);
  if (!signing) return null;
  const due = signing.signsFrom.getTime() + policy.rotateAfterSeconds * 1000;
  return {
    signingSince: signing.signsFrom,
    rotationDueAt: new Date(due),
    successorDueAt: new Date(due - policy.publishLeadSeconds * 1000),
    successorPublished: pendingSuccessor(keys, at) !== undefined,
  };
}
