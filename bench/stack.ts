import { ensureSnapshotStream } from "@board/service-kit";
import { deleteSnapshotStream, freePort, freshDatabase, type TestDatabase } from "@board/service-kit/testing";
import { connect, type NatsConnection } from "nats";
import { BoardEnv } from "../services/board/src/env.js";
import { startBoard, type BoardService } from "../services/board/src/start.js";
import { GatewayEnv } from "../services/gateway/src/env.js";
import { startGateway, type GatewayService } from "../services/gateway/src/start.js";
import { randomBytes } from "node:crypto";
import { IdentityEnv } from "../services/identity/src/env.js";
import { startIdentity } from "../services/identity/src/start.js";
import { MeteringEnv } from "../services/metering/src/env.js";
import { startMetering } from "../services/metering/src/start.js";
import { PaymentsEnv } from "../services/payments/src/env.js";
import { startPayments, type PaymentsService } from "../services/payments/src/start.js";
import { publishBenchBoards } from "./boards.js";
import type { BenchInfra } from "./infra.js";

/** The load comes from one address and one key per tier row: the burst limits are lifted so what is measured is the checks' cost, not their refusals. */
const NO_BURST = { BURST_CAPACITY: "100000", BURST_PER_SECOND: "100000", ANON_BURST_CAPACITY: "100000", ANON_BURST_PER_SECOND: "100000" };

/**
 * Gateway, board, identity, metering and payments in this process on the real NATS and a fresh Postgres database,
 * as test/integration/harness.ts brings them up (that harness takes its infrastructure from
 * vitest's inject; this one is handed it).
 */
export class BenchStack {
  nc!: NatsConnection;
  db!: TestDatabase;
  board: BoardService | null = null;
  payments: PaymentsService | null = null;
  gateway: GatewayService | null = null;
  identity: Awaited<ReturnType<typeof startIdentity>> | null = null;
  metering: Awaited<ReturnType<typeof startMetering>> | null = null;
  private port = 0;
  private extra: Record<string, string> = {};

  constructor(private readonly infra: BenchInfra) {}

  get base(): string {
    if (!this.gateway) throw new Error("gateway not started");
    return `http://127.0.0.1:${this.port}`;
  }

  /** `extra` is given to every service's environment (a setting compared before and after). */
  async start(extra: Record<string, string> = {}): Promise<void> {
    this.extra = extra;
    this.nc = await connect({ servers: this.infra.natsUrl });
    await deleteSnapshotStream(this.nc);
    await ensureSnapshotStream(this.nc);
    this.db = await freshDatabase(this.infra.databaseUrl);
    // Served reads of earlier runs stay out of this one's count.
    await (await this.nc.jetstreamManager()).streams.delete("READS").catch(() => false);
    this.port = await freePort();
    const base = `http://127.0.0.1:${this.port}`;
    const common = { NATS_URL: this.infra.natsUrl, DATABASE_URL: this.db.url, HEALTH_PORT: 0, LOG_LEVEL: "warn", ...extra };
    this.metering = await startMetering(MeteringEnv.parse({ ...common, ...NO_BURST }));
    this.identity = await startIdentity(IdentityEnv.parse({ ...common, IDENTITY_SECRET: randomBytes(32).toString("base64url"), PUBLIC_BASE_URL: base }));
    this.gateway = await startGateway(
      GatewayEnv.parse({ NATS_URL: this.infra.natsUrl, PORT: this.port, HOST: "127.0.0.1", HEALTH_PORT: 0, LOG_LEVEL: "warn", BUS_TIMEOUT_MS: 2000, PUBLIC_BASE_URL: base, ...extra }),
    );
    this.board = await startBoard(BoardEnv.parse(common));
    await publishBenchBoards(this.nc);
    await this.untilCurrent("2026-11-20");
  }

  /** (Re)starts the payments service on this stack's bus and database with `env` (rails, payTo, keys, verifier). */
  async startPayments(env: Record<string, string>): Promise<PaymentsService> {
    await this.stopPayments();
    this.payments = await startPayments(
      PaymentsEnv.parse({ NATS_URL: this.infra.natsUrl, DATABASE_URL: this.db.url, HEALTH_PORT: 0, LOG_LEVEL: "warn", ...this.extra, ...env }),
    );
    return this.payments;
  }

  async stopPayments(): Promise<void> {
    await this.payments?.stop();
    this.payments = null;
  }

  async stop(): Promise<void> {
    await this.gateway?.stop();
    await this.stopPayments();
    await this.board?.stop();
    await this.identity?.stop();
    await this.metering?.stop();
    await this.nc?.close();
    await this.db?.drop();
  }

  private async untilCurrent(asof: string): Promise<void> {
    const end = Date.now() + 15_000;
    while (Date.now() < end) {
      const r = await fetch(`${this.base}/api/board/status`);
      if (r.status === 200 && ((await r.json()) as { asof_daily?: string }).asof_daily === asof) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`the board did not serve ${asof} within 15 s`);
  }
}

