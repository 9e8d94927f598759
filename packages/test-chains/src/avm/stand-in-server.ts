import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { timingSafeEqual } from "node:crypto";
import algosdk from "algosdk";
import type { StandInLedger } from "./stand-in-ledger.js";
import { minBalance } from "./stand-in-ledger.js";
import { decodeSignedGroup, fromSignedTransactions, type StandInTxn } from "./stand-in-wire.js";
import { verifyGroup } from "./stand-in-verify.js";
import { isRejection, type StandInRejection } from "./stand-in-rejection.js";
import {
  ALGORAND_MAINNET_GENESIS_HASH,
  ALGORAND_MAINNET_GENESIS_ID,
  CONSENSUS_VERSION,
  MIN_TXN_FEE,
} from "./stand-in-network.js";

/**
 * The algod stand-in's HTTP face: the algod v2 routes that @x402/avm's client and facilitator
 * call through algokit-utils' AlgodClient (params, submit, simulate, pending, status, wait for a
 * block), plus account reads for our own code, answered in the encodings algod uses. Errors are
 * algod-style `{"message": ...}` bodies with status 400/401/404: never 5xx for a refusal, since
 * the algod clients retry 5xx with backoff.
 */

const MAX_BODY_BYTES = 1 << 20;
type Format = "json" | "msgpack";

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly data?: Record<string, unknown>,
  ) {
    super(message);
  }
}

export interface ServeOptions {
  port: number;
  token: string;
  ledger: StandInLedger;
}

export async function serveAlgodStandIn(opts: ServeOptions): Promise<Server> {
  const server = createServer((req, res) => {
    handle(req, res, opts).catch((error: unknown) => {
      if (error instanceof HttpError) {
        sendJson(res, error.status, error.data ? { message: error.message, data: error.data } : { message: error.message });
      } else {
        // A stand-in bug, not a refusal: say so without echoing internals.
        sendJson(res, 500, { message: "algod stand-in internal error" });
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port, "127.0.0.1", () => resolve());
  });
  return server;
}

async function handle(req: IncomingMessage, res: ServerResponse, opts: ServeOptions): Promise<void> {
  checkToken(req.headers["x-algo-api-token"], opts.token);
  const url = new URL(req.url ?? "/", "http://stand-in");
  const format: Format = url.searchParams.get("format") === "msgpack" ? "msgpack" : "json";
  const path = url.pathname.replace(/\/+$/, "");
  const { ledger } = opts;
  const method = req.method ?? "GET";
  let m: RegExpExecArray | null;

  if (method === "GET" && path === "/v2/status") return sendJson(res, 200, status(ledger), format);
  if (method === "GET" && (m = /^\/v2\/status\/wait-for-block-after\/(\d+)$/.exec(path))) {
    // algod waits for the next block; the stand-in produces it at once so tests never sleep.
    const after = BigInt(m[1] as string);
    if (ledger.lastRound <= after) ledger.advance(after + 1n - ledger.lastRound);
    return sendJson(res, 200, status(ledger), format);
  }
  if (method === "GET" && path === "/v2/transactions/params") return sendJson(res, 200, params(ledger), format);
  if (method === "POST" && path === "/v2/transactions") return submit(res, ledger, await readBody(req));
  if (method === "POST" && path === "/v2/transactions/simulate") return simulate(res, ledger, await readBody(req), format);
  if (method === "GET" && (m = /^\/v2\/transactions\/pending\/([A-Z2-7]{52})$/.exec(path))) {
    return pending(res, ledger, m[1] as string, format);
  }
  if (method === "GET" && (m = /^\/v2\/accounts\/([^/]+)\/assets\/(\d+)$/.exec(path))) {
    return sendJson(res, 200, accountAsset(ledger, parseAddress(m[1] as string), BigInt(m[2] as string)), format);
  }
  if (method === "GET" && (m = /^\/v2\/accounts\/([^/]+)$/.exec(path))) {
    return sendJson(res, 200, account(ledger, parseAddress(m[1] as string)), format);
  }
  throw new HttpError(404, `the algod stand-in does not serve ${method} ${path}`);
}

function checkToken(header: string | string[] | undefined, token: string): void {
  const given = Buffer.from(typeof header === "string" ? header : "");
  const want = Buffer.from(token);
  if (given.length !== want.length || !timingSafeEqual(given, want)) throw new HttpError(401, "Invalid API Token");
}

async function readBody(req: IncomingMessage): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new HttpError(400, `request body exceeds ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk);
  }
  return new Uint8Array(Buffer.concat(chunks));
}

function rejectionError(r: StandInRejection): HttpError {
  const data: Record<string, unknown> = { reason: r.reason };
  if (r.groupIndex !== undefined) data["group-index"] = r.groupIndex;
  return new HttpError(400, r.message, data);
}

function submit(res: ServerResponse, ledger: StandInLedger, body: Uint8Array): void {
  const txns = decodeSignedGroup(body);
  if (isRejection(txns)) throw rejectionError(txns);
  const problem = verifyGroup(txns, { allowEmptySignatures: false });
  if (problem) throw rejectionError(problem);
  const result = ledger.evalGroup(txns);
  if (isRejection(result)) throw rejectionError({ ...result, message: `TransactionPool.Remember: ${result.message}` });
  ledger.commit(txns, result);
  sendJson(res, 200, { txId: (txns[0] as StandInTxn).txId });
}

function simulate(res: ServerResponse, ledger: StandInLedger, body: Uint8Array, format: Format): void {
  let request: algosdk.modelsv2.SimulateRequest;
  try {
    request = format === "msgpack"
      ? algosdk.decodeMsgpack(body, algosdk.modelsv2.SimulateRequest)
      : algosdk.decodeJSON(Buffer.from(body).toString("utf8"), algosdk.modelsv2.SimulateRequest);
  } catch (error) {
    throw new HttpError(400, `failed to decode simulate request: ${error instanceof Error ? error.message : "unknown"}`);
  }
  const [group, ...more] = request.txnGroups;
  if (!group || more.length > 0) throw new HttpError(400, `expected 1 transaction group, got ${request.txnGroups.length}`);
  if (request.round !== undefined) throw new HttpError(400, "the algod stand-in does not simulate at past rounds");
  const txns = fromSignedTransactions(group.txns);
  if (isRejection(txns)) throw rejectionError(txns);
  const allowEmptySignatures = request.allowEmptySignatures === true;
  const problem = verifyGroup(txns, { allowEmptySignatures });
  if (problem) throw rejectionError(problem);
  const result = ledger.evalGroup(txns); // never committed
  const failure = isRejection(result) ? result : undefined;
  const response = new algosdk.modelsv2.SimulateResponse({
    version: 2,
    lastRound: ledger.lastRound,
    txnGroups: [
      new algosdk.modelsv2.SimulateTransactionGroupResult({
        txnResults: txns.map(
          (t) =>
            new algosdk.modelsv2.SimulateTransactionResult({
              txnResult: new algosdk.modelsv2.PendingTransactionResponse({ poolError: "", txn: t.stxn }),
            }),
        ),
        ...(failure ? { failureMessage: failure.message, failedAt: [failure.groupIndex ?? 0] } : {}),
      }),
    ],
    ...(allowEmptySignatures ? { evalOverrides: new algosdk.modelsv2.SimulationEvalOverrides({ allowEmptySignatures }) } : {}),
  });
  sendModel(res, response, format);
}

function pending(res: ServerResponse, ledger: StandInLedger, txId: string, format: Format): void {
  // Only committed transactions are known: the stand-in refuses at submit instead of pooling.
  const committed = ledger.transaction(txId);
  if (!committed) throw new HttpError(404, "txn does not exist");
  const response = new algosdk.modelsv2.PendingTransactionResponse({
    poolError: "",
    txn: committed.stxn,
    confirmedRound: committed.round,
  });
  sendModel(res, response, format);
}

function status(ledger: StandInLedger): Record<string, unknown> {
  return {
    "catchup-time": 0,
    "last-round": ledger.lastRound,
    "last-version": CONSENSUS_VERSION,
    "next-version": CONSENSUS_VERSION,
    "next-version-round": ledger.lastRound + 1n,
    "next-version-supported": true,
    "stopped-at-unsupported-round": false,
    "time-since-last-round": BigInt(ledger.sinceLastRoundMs) * 1_000_000n,
  };
}

function params(ledger: StandInLedger): Record<string, unknown> {
  return {
    "consensus-version": CONSENSUS_VERSION,
    fee: 0, // fee per byte: 0 while the network is not congested
    "genesis-hash": ALGORAND_MAINNET_GENESIS_HASH,
    "genesis-id": ALGORAND_MAINNET_GENESIS_ID,
    "last-round": ledger.lastRound,
    "min-fee": MIN_TXN_FEE,
  };
}

function account(ledger: StandInLedger, address: string): Record<string, unknown> {
  const state = ledger.account(address);
  const body: Record<string, unknown> = {
    address,
    amount: state.microAlgos,
    "amount-without-pending-rewards": state.microAlgos,
    "min-balance": minBalance(state),
    "pending-rewards": 0,
    rewards: 0,
    round: ledger.lastRound,
    status: "Offline",
    "total-apps-opted-in": 0,
    "total-assets-opted-in": state.assets.size,
    "total-created-apps": 0,
    "total-created-assets": 0,
    assets: [...state.assets].map(([id, amount]) => ({ amount, "asset-id": id, "is-frozen": false })),
  };
  if (state.authAddr) body["auth-addr"] = state.authAddr;
  return body;
}

function accountAsset(ledger: StandInLedger, address: string, assetId: bigint): Record<string, unknown> {
  const amount = ledger.account(address).assets.get(assetId);
  if (amount === undefined) throw new HttpError(404, "account asset information not found");
  return { round: ledger.lastRound, "asset-holding": { amount, "asset-id": assetId, "is-frozen": false } };
}

function parseAddress(raw: string): string {
  if (!algosdk.isValidAddress(raw)) throw new HttpError(400, `failed to parse the address: ${raw}`);
  return raw;
}

function sendJson(res: ServerResponse, status: number, body: Record<string, unknown>, format: Format = "json"): void {
  if (format === "msgpack") throw new HttpError(400, "the algod stand-in answers this route in JSON only");
  const text = algosdk.stringifyJSON(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

function sendModel(res: ServerResponse, model: algosdk.Encodable, format: Format): void {
  if (format === "msgpack") {
    const bytes = algosdk.encodeMsgpack(model);
    res.writeHead(200, { "content-type": "application/msgpack", "content-length": bytes.length });
    res.end(bytes);
    return;
  }
  const text = algosdk.encodeJSON(model);
  res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}
