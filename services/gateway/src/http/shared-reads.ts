/**
 * Identical board reads in flight at the same moment share one board.v1.read: under load most
 * free reads ask for the same view at once, and each would cost two bus messages and a board
 * lookup for the same answer. A read joins only a request still in flight (sent at most one bus
 * round trip before it), so it gets what the board answered a moment after the read arrived or
 * just before: the same as if the two had been served in the other order. Paid reads never
 * share (their receipt names what was read for them); the count or payment of every read is
 * taken before it reads, as before.
 */
export class SharedReads<T> {
  private readonly inFlight = new Map<string, Promise<T>>();
  /** Reads answered by another read's request (for tests and the bench). */
  joined = 0;

  run(key: string, ask: () => Promise<T>): Promise<T> {
    const pending = this.inFlight.get(key);
    if (pending) {
      this.joined++;
      return pending;
    }
    const asked = ask().finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, asked);
    return asked;
  }
}
