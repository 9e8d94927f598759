/** Pairs kept per gateway replica (the oldest dropped first). */
const MAX_ENTRIES = 10_000;

/**
 * Wallets metering has counted for a client address, until their count ends (its
 * `counted_until`). Until then metering would answer "granted" without counting again, so a
 * read signed in by header need not ask it on every read: the hourly limit stays exactly as
 * metering keeps it. A cache, not a record: a restarted gateway simply asks again.
 */
export class CountedWallets {
  private readonly untilMs = new Map<string, number>();

  constructor(private readonly now: () => Date = () => new Date()) {}

  private static key = (client: string, wallet: string) => `${client}\n${wallet}`;

  counts(client: string, wallet: string): boolean {
    const key = CountedWallets.key(client, wallet);
    const until = this.untilMs.get(key);
    if (until === undefined) return false;
    if (this.now().getTime() < until) return true;
    this.untilMs.delete(key);
    return false;
  }

  remember(client: string, wallet: string, countedUntil: string): void {
    const until = Date.parse(countedUntil);
    if (!(until > this.now().getTime())) return;
    const key = CountedWallets.key(client, wallet);
    this.untilMs.delete(key);
    this.untilMs.set(key, until);
    if (this.untilMs.size > MAX_ENTRIES) this.untilMs.delete(this.untilMs.keys().next().value as string);
  }
}
