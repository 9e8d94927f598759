import { TestNatsServer } from "@board/service-kit/testing";
import { startEvmChain, type EvmChain } from "@board/test-chains/evm";
import pg from "pg";
import { TcpProxy } from "./fault-proxy.js";
import type { Stack, StackOptions } from "./harness.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Waits for a teardown step at most `ms`, whatever it does: a broken dependency must not hold the hook. */
export const bounded = (p: Promise<unknown>, ms: number) => Promise.race([p.catch(() => undefined), sleep(ms)]);

export interface FaultStackOptions {
  /** Funded accounts of the local EVM chain (the first is payments' facilitator). */
  accounts: number;
  /** The stack's own settings (its bus and database are the fault stack's). */
  stack?: Omit<StackOptions, "natsUrl" | "natsSeeds" | "databaseUrlFor">;
  /** Runs once the chain answers, before the stack starts (a proxy in front of its RPC). */
  onChain?: (chain: EvmChain) => Promise<void>;
  /** Payments' settings, asked once the chain (and onChain) are up. */
  payments: () => Record<string, string>;
}

/**
 * What a fault test runs its stack on: a nats-server of its own (authorization on, as the
 * suite's: other files' services must not answer its requests), Postgres behind a proxy the
 * test can cut, its own connection straight to Postgres (never through the proxy) and a local
 * EVM chain; a board serving the two fixture days and payments on the chain. It keeps every
 * error nobody handled while the file ran: each one would have stopped a real service process.
 * Whatever of it started is stopped by stop(), a start that failed halfway included.
 */
export class FaultStack {
  nats: TestNatsServer | null = null;
  pgProxy: TcpProxy | null = null;
  chain: EvmChain | null = null;
  directDb: pg.Client | null = null;
  readonly uncaught: unknown[] = [];
  private readonly onUncaught = (err: unknown) => void this.uncaught.push(err);

  constructor(readonly stack: Stack) {}

  async start(opts: FaultStackOptions): Promise<void> {
    process.on("uncaughtException", this.onUncaught);
    const nats = (this.nats = await TestNatsServer.start());
    const pgUrl = new URL(this.stack.infra.databaseUrl);
    const pgProxy = (this.pgProxy = new TcpProxy({ host: pgUrl.hostname, port: Number(pgUrl.port || 5432) }));
    await pgProxy.listen();
    this.chain = await startEvmChain({ accounts: opts.accounts });
    await opts.onChain?.(this.chain);
    await this.stack.start({ ...opts.stack, natsUrl: nats.url, natsSeeds: nats.seeds, databaseUrlFor: (url) => pgProxy.urlThrough(url) });

    this.directDb = new pg.Client({ connectionString: this.stack.db.url });
    await this.directDb.connect();
    await this.stack.startBoard();
    await this.stack.publishTwoDays();
    await this.stack.startPayments(opts.payments());
    await this.stack.untilServing();
  }

  /**
   * Stops the stack and then what it ran on (the nats-server first, once the stack has left the
   * bus). `beforeStack`: the file's own processes and faults, undone before the stack stops;
   * `afterNats`: the file's own servers, closed after the bus. Throws when errors went unhandled.
   */
  async stop(hooks: { beforeStack?: () => Promise<void>; afterNats?: () => Promise<void>; report?: () => void } = {}): Promise<void> {
    // Whatever a failed test left behind: the database faults undone first, so every service stops cleanly.
    this.pgProxy?.restore();
    try {
      await hooks.beforeStack?.();
      await bounded(this.directDb?.end() ?? Promise.resolve(), 5_000);
      await bounded(this.stack.stop(), 20_000);
    } finally {
      await this.nats?.stop();
      await hooks.afterNats?.();
      await this.pgProxy?.close();
      await this.chain?.stop();
      process.off("uncaughtException", this.onUncaught);
      hooks.report?.();
    }
    if (this.uncaught.length > 0) throw new Error(`uncaught errors while this file ran: ${this.uncaught.map(String).join("; ")}`);
  }
}
