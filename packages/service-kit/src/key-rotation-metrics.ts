import { Gauge, type Metrics } from "./metrics.js";

/** Where a rotating signing key stands, as its owner's schedule says. */
export interface KeyRotationState {
  /** When the key that signs now started signing. */
  signingSince: Date;
  /** When its successor must take over: signingSince plus the key's active life. */
  rotationDueAt: Date;
  /** When the successor must be published (the rotation's publish lead before rotationDueAt). */
  successorDueAt: Date;
  /** Whether a successor is published and waiting to sign. */
  successorPublished: boolean;
}

/**
 * signing_key_*{key}: a rotating key's schedule at scrape time, so an alert can tell a rotation
 * coming (rotation due soon) from one that stalled (the successor not published when due: the
 * key would sign past its life). Rotation itself is automatic; these say whether it happened.
 */
export function gaugeKeyRotation(metrics: Metrics, key: string, state: () => KeyRotationState | null): void {
  const registers = [metrics.registry];
  const seconds = (d: Date) => d.getTime() / 1000;
  const gauges: [string, string, (s: KeyRotationState) => number][] = [
    ["signing_key_signing_since_timestamp_seconds", "When the key that signs now started signing", (s) => seconds(s.signingSince)],
    ["signing_key_rotation_due_timestamp_seconds", "When the signing key's successor must take over (its active life ends)", (s) => seconds(s.rotationDueAt)],
    ["signing_key_successor_due_timestamp_seconds", "When the signing key's successor must be published, ahead of taking over", (s) => seconds(s.successorDueAt)],
    ["signing_key_successor_published", "1 when a successor key is published and waiting to sign", (s) => (s.successorPublished ? 1 : 0)],
  ];
  for (const [name, help, read] of gauges)
    new Gauge({
      name,
      help,
      labelNames: ["key"],
      registers,
      collect() {
        this.reset();
        const s = state();
        if (s) this.set({ key }, read(s));
      },
    });
}
