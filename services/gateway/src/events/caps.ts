/** Why a stream was refused: too many from this client address, or this replica holds all it may. */
export type CapRefusal = "too_many_streams" | "streams_at_capacity";

export interface CapLimits {
  /** Open streams one client address may hold on this replica. */
  perClient: number;
  /** Open streams this replica holds at most. */
  total: number;
}

/**
 * The concurrent-stream caps of one gateway replica: a slot is taken before a stream opens
 * (so concurrent connects cannot all pass a check made before either counted) and given back
 * when it closes. Behind N replicas a client address may hold up to N times `perClient`;
 * each replica bounds its own memory, which is what the cap is for.
 */
export class StreamCaps {
  private readonly byClient = new Map<string, number>();
  private open = 0;

  constructor(private readonly limits: CapLimits) {}

  /** Takes a slot for `client`, or says why not. */
  take(client: string): CapRefusal | null {
    const held = this.byClient.get(client) ?? 0;
    if (held >= this.limits.perClient) return "too_many_streams";
    if (this.open >= this.limits.total) return "streams_at_capacity";
    this.byClient.set(client, held + 1);
    this.open++;
    return null;
  }

  /** Gives back a slot `take` gave. */
  give(client: string): void {
    const held = this.byClient.get(client) ?? 0;
    if (held <= 1) this.byClient.delete(client);
    else this.byClient.set(client, held - 1);
    this.open = Math.max(0, this.open - 1);
  }
}
