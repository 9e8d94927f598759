import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { formatUnits, isAddress, type Address } from "viem";
import { checkPayment, isRecord, type GatewayReason } from "./check.js";
import { GatewayLedger, type GatewaySettlement } from "./ledger.js";
import {
  GATEWAY_BASE,
  GATEWAY_BATCHED_NAME,
  GATEWAY_BATCHED_VERSION,
  GATEWAY_MIN_VALIDITY_SECONDS,
  USDC_DECIMALS,
  type GatewayNetwork,
} from "./network.js";

const HOST = "127.0.0.1";
const MAX_BODY_BYTES = 1 << 20;

export interface CircleGatewayStandInOptions {
  /** TCP port on 127.0.0.1; 0 (the default) picks a free one. */
  port?: number;
  /** The one network served (default Base mainnet, eip155:8453). */
  network?: GatewayNetwork;
  /** Shortest validity left on an authorization that is accepted (default 7 days, as Circle). */
  minValiditySeconds?: number;
  /** The stand-in's clock, in unix seconds (default: the system clock). */
  now?: () => number;
  /**
   * Headers every request must carry (name case-insensitive, value exact), e.g. an
   * Authorization the service is configured to send; otherwise 401. Circle's x402 endpoints
   * need none, so the default is none.
   */
  requiredHeaders?: Record<string, string>;
}

export interface CircleGatewayStandIn {
  /** Base URL for BatchFacilitatorClient({ url }) (no trailing slash). */
  url: string;
  network: GatewayNetwork;
  /** Credits a Gateway balance, in USDC base units; returns the new balance. */
  deposit(address: Address, amount: bigint): bigint;
  /** Gateway balance in USDC base units: deposits, minus payments made, plus payments received. */
  balanceOf(address: Address): bigint;
  /** Settlements accepted so far, oldest first (copies). */
  settlements(): GatewaySettlement[];
  /** Closes the HTTP server. Idempotent. */
  stop(): Promise<void>;
}

interface Context {
  network: GatewayNetwork;
  minValiditySeconds: number;
  now: () => number;
  requiredHeaders: [string, string][];
  ledger: GatewayLedger;
}

type Reply = { status: number; body: unknown };

/** A stand-in, for tests, of Circle Gateway's HTTP API (see index.ts for the endpoints). */
export async function startCircleGatewayStandIn(opts: CircleGatewayStandInOptions = {}): Promise<CircleGatewayStandIn> {
  const ctx: Context = {
    network: opts.network ?? GATEWAY_BASE,
    minValiditySeconds: opts.minValiditySeconds ?? GATEWAY_MIN_VALIDITY_SECONDS,
    now: opts.now ?? (() => Math.floor(Date.now() / 1000)),
    requiredHeaders: Object.entries(opts.requiredHeaders ?? {}).map(([name, value]) => [name.toLowerCase(), value]),
    ledger: new GatewayLedger(),
  };
  const server = createServer((req, res) => {
    route(ctx, req)
      .then((reply) => send(res, reply))
      .catch(() => send(res, { status: 500, body: { code: 500, message: "Internal stand-in error" } }));
  });
  // Clients keep connections alive; idle ones must not hold up close().
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, HOST, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  let stopped: Promise<void> | undefined;
  return {
    url: `http://${HOST}:${port}`,
    network: ctx.network,
    deposit: (address, amount) => ctx.ledger.deposit(address, amount),
    balanceOf: (address) => ctx.ledger.balanceOf(address),
    settlements: () => ctx.ledger.settlements(),
    stop: () => (stopped ??= closeServer(server)),
  };
}

async function route(ctx: Context, req: IncomingMessage): Promise<Reply> {
  for (const [name, value] of ctx.requiredHeaders) {
    if (req.headers[name] !== value) return error(401, "Unauthorized");
  }
  const path = (req.url ?? "/").split("?")[0];
  const handler = ROUTES[`${req.method ?? "GET"} ${path}`];
  if (handler === undefined) {
    return Object.keys(ROUTES).some((r) => r.endsWith(` ${path}`)) ? error(405, "Method Not Allowed") : error(404, "Not Found");
  }
  if (req.method === "GET") return handler(ctx, undefined);
  const body = await readJson(req);
  if (body === TOO_LARGE) return error(413, "Request body too large");
  if (body === INVALID) return error(400, "Request body is not valid JSON");
  return handler(ctx, body);
}

const ROUTES: Record<string, (ctx: Context, body: unknown) => Reply | Promise<Reply>> = {
  "GET /v1/x402/supported": supported,
  "POST /v1/x402/verify": verify,
  "POST /v1/x402/settle": settle,
  "POST /v1/balances": balances,
};

function supported(ctx: Context): Reply {
  const { network, gatewayWallet, usdc } = ctx.network;
  return ok({
    kinds: [
      {
        x402Version: 2,
        scheme: "exact",
        network,
        extra: {
          name: GATEWAY_BATCHED_NAME,
          version: GATEWAY_BATCHED_VERSION,
          // Circle serves it lowercased; clients checksum it before signing.
          verifyingContract: gatewayWallet.toLowerCase(),
          minValiditySeconds: ctx.minValiditySeconds,
          assets: [{ symbol: "USDC", address: usdc, decimals: USDC_DECIMALS }],
        },
      },
    ],
    extensions: [],
    signers: {},
  });
}

/** Read-only checks only: as Circle documents, balance and nonce are checked at settle time. */
async function verify(ctx: Context, body: unknown): Promise<Reply> {
  const envelope = parseEnvelope(body);
  if (envelope === undefined) return envelopeError();
  const result = await checkPayment(envelope.paymentPayload, envelope.paymentRequirements, checkContext(ctx));
  if (!result.ok) return ok(withPayer({ isValid: false, invalidReason: result.reason }, result.payer));
  return ok({ isValid: true, payer: result.authorization.from });
}

/** Every verify check, then (atomically) the nonce, the payer's balance, debit and credit. */
async function settle(ctx: Context, body: unknown): Promise<Reply> {
  const envelope = parseEnvelope(body);
  if (envelope === undefined) return envelopeError();
  const network = ctx.network.network;
  const settleFailed = (reason: GatewayReason, payer?: Address) =>
    ok(withPayer({ success: false, errorReason: reason, transaction: "", network }, payer));

  const result = await checkPayment(envelope.paymentPayload, envelope.paymentRequirements, checkContext(ctx));
  if (!result.ok) return settleFailed(result.reason, result.payer);
  const { authorization } = result;
  const outcome = ctx.ledger.settle(network, authorization, ctx.now());
  if (typeof outcome === "string") return settleFailed(outcome, authorization.from);
  return ok({ success: true, transaction: outcome.id, network, payer: outcome.payer });
}

/** Circle's unified-balance query: `{ token: "USDC", sources: [{ depositor, domain? }] }`. */
function balances(ctx: Context, body: unknown): Reply {
  if (!isRecord(body) || body.token !== "USDC" || !Array.isArray(body.sources)) {
    return error(400, "token must be USDC and sources an array");
  }
  const rows: unknown[] = [];
  for (const source of body.sources) {
    if (!isRecord(source) || typeof source.depositor !== "string" || !isAddress(source.depositor, { strict: false })) {
      return error(400, "each source needs a depositor address");
    }
    if (source.domain !== undefined && source.domain !== ctx.network.domain) continue;
    const balance = ctx.ledger.balanceOf(source.depositor);
    rows.push({ domain: ctx.network.domain, depositor: source.depositor, balance: formatUnits(balance, USDC_DECIMALS) });
  }
  return ok({ token: "USDC", balances: rows });
}

function checkContext(ctx: Context) {
  return { network: ctx.network, minValiditySeconds: ctx.minValiditySeconds, now: ctx.now() };
}

function parseEnvelope(body: unknown): { paymentPayload: unknown; paymentRequirements: unknown } | undefined {
  if (!isRecord(body) || !isRecord(body.paymentPayload) || !isRecord(body.paymentRequirements)) return undefined;
  return { paymentPayload: body.paymentPayload, paymentRequirements: body.paymentRequirements };
}

function envelopeError(): Reply {
  return error(400, "paymentPayload and paymentRequirements are required objects");
}

function withPayer<T extends object>(body: T, payer: Address | undefined): T | (T & { payer: Address }) {
  return payer === undefined ? body : { ...body, payer };
}

function ok(body: unknown): Reply {
  return { status: 200, body };
}

function error(status: number, message: string): Reply {
  return { status, body: { code: status, message } };
}

function send(res: ServerResponse, reply: Reply): void {
  if (res.headersSent) return void res.end();
  res.writeHead(reply.status, { "content-type": "application/json" }).end(JSON.stringify(reply.body));
}

const TOO_LARGE = Symbol("too large");
const INVALID = Symbol("invalid");

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  // Drain an oversized body rather than break off: destroying the request would drop the 413.
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size <= MAX_BODY_BYTES) chunks.push(chunk as Buffer);
  }
  if (size > MAX_BODY_BYTES) return TOO_LARGE;
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8")) as unknown;
  } catch {
    return INVALID;
  }
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.close((err) => (err ? reject(err) : resolve()));
    server.closeAllConnections();
  });
}
