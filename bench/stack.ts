import type { ServiceName } from "@board/proto";
import { freePort, freshDatabase, type TestDatabase } from "@board/service-kit/testing";
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
import { NO_BURST, publishBenchBoards, resetBenchStreams, untilServing } from "./boards.js";
import { benchBusEnv, benchBusOptions, type BenchInfra } from "./infra.js";


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

  constructor(private readonly infra: BenchInfra) {}

  get base(): string {
    if (!this.gateway) throw new Error("gateway not started");
    return `http://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    this.nc = await connect(benchBusOptions(this.infra));
    await resetBenchStreams(this.nc);
    this.db = await freshDatabase(this.infra.databaseUrl);
    this.port = await freePort();
    const base = `http://127.0.0.1:${this.port}`;
    const common = (service: ServiceName) => ({ ...benchBusEnv(this.infra, service), DATABASE_URL: this.db.url, HEALTH_PORT: 0, LOG_LEVEL: "warn" });
    this.metering = await startMetering(MeteringEnv.parse({ ...common("metering"), ...NO_BURST }));
    this.identity = await startIdentity(IdentityEnv.parse({ ...common("identity"), IDENTITY_SECRET: randomBytes(32).toString("base64url"), PUBLIC_BASE_URL: base }));
    this.gateway = await startGateway(
      GatewayEnv.parse({ ...benchBusEnv(this.infra, "gateway"), PORT: this.port, HOST: "127.0.0.1", HEALTH_PORT: 0, LOG_LEVEL: "warn", BUS_TIMEOUT_MS: 2000, PUBLIC_BASE_URL: base }),
    );
    this.board = await startBoard(BoardEnv.parse(common("board")));
    await publishBenchBoards(this.nc);
    await untilServing(this.base);
  }

  /** One per stack: a restarted payments opens the receipt keys it made. */
  private readonly receiptSecret = randomBytes(32).toString("base64url");

  /** (Re)starts the payments service on this stack's bus and database with `env` (rails, payTo, keys, verifier). */
  async startPayments(env: Record<string, string>): Promise<PaymentsService> {
    await this.stopPayments();
    this.payments = await startPayments(
      PaymentsEnv.parse({ ...benchBusEnv(this.infra, "payments"), DATABASE_URL: this.db.url, HEALTH_PORT: 0, LOG_LEVEL: "warn", RECEIPT_SECRET: this.receiptSecret, ...env }),
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

}

