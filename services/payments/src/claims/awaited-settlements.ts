/** A claim not settled or released this long after it was made is no longer waited for (its settle may go to another replica). */
const AWAITED_FOR_MS = 10_000;

/**
 * Claims this replica made that will settle in a batch and have not asked to yet. When none is
 * left, nobody is on the way to the open batch and it closes at once: a lone buyer does not
 * wait out the window, and a burst of reads goes in one batch as soon as its last settle
 * arrives. Only a hint: with replicas, a claim's settle may reach another one, and then the
 * window closes the batch as before.
 */
export class AwaitedSettlements {
  private readonly awaited = new Map<string, number>();

  claimed(id: string): void {
    this.awaited.set(id, Date.now() + AWAITED_FOR_MS);
  }

  /** Its settle arrived, or it was released. */
  done(id: string): void {
    this.awaited.delete(id);
  }

  /** Whether any claim of this replica is still on its way to a batch. */
  any(): boolean {
    if (this.awaited.size === 0) return false;
    const now = Date.now();
    for (const [id, until] of this.awaited) if (until < now) this.awaited.delete(id);
    return this.awaited.size > 0;
  }
}
