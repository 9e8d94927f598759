import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { FreeBoard, identityLicenseIssue, inboxPrefixOf, NameSeries, PAID_ROUTES, ROUTES, SectorLabel, SERIES_STREAM, seriesSubject, type LicenseIssueReply, type NameRecord, type Route } from "@board/proto";
import { request } from "@board/service-kit";
import { readDevWallets } from "@board/client/dev-wallets";
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import { createSIWxPayload, encodeSIWxHeader, type SIWxExtension } from "@x402/extensions/sign-in-with-x";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { x402Client } from "@x402/fetch";
import fc from "fast-check";
import { Challenge } from "mppx";
import { connect, nkeyAuthenticator, type NatsConnection } from "nats";
import pg from "pg";
import { createPublicClient, http as viemHttp, parseAbiItem, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requestArb, type FuzzRequest, type Vocabulary } from "../integration/fuzz-arbitraries.js";
import { alive, childrenOf, databasePid, launchStack, median, servicePid, type LaunchedStack } from "./launched-stack.js";

// The stack a newcomer runs: `npm start` with neither DATABASE_URL nor NATS_URL, so its own
// PostgreSQL server (a role per service) and its own nats-server, and the development chains.
// It must hold what the suites prove against CI's services: repeated starts, bursts on one key
// and one payment, fuzzed requests, mixed tiers at once, a service and the database killed.

const tmp = (label: string) => fs.mkdtempSync(path.join(os.tmpdir(), `board-default-${label}-`));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const dirs: string[] = [];

describe("npm start, started again and again", () => {
  it("starts ten times in a row, alternating a new and a kept DATA_DIR: each serves, what one start wrote is there at the next, and Ctrl-C leaves nothing running", async () => {
    const cold: number[] = [];
    const warm: number[] = [];
    let dir = "";
    let key = "";
    let counted = { used_today: 0, reset_at: "" };
    const read = (base: string) => fetch(`${base}/api/board/regime`, { headers: { "x-board-key": key } });
    for (let i = 0; i < 10; i++) {
      if (i % 2 === 0) dirs.push((dir = tmp("starts")));
      const stack = await launchStack(dir);
      (i % 2 === 0 ? cold : warm).push(stack.firstFreeReadMs);
      try {
        if (i % 2 === 0) {
          // Written in the new DATA_DIR: a free key (identity) and one read counted (metering).
          const issued = await fetch(`${stack.base}/api/key`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email: `kept-${i}@example.com` }) });
          expect(issued.status, await issued.clone().text()).toBe(201);
          key = ((await issued.json()) as { key: string }).key;
          const first = await read(stack.base);
          expect(first.status).toBe(200);
          counted = ((await first.json()) as { tier: { used_today: number; reset_at: string } }).tier;
          expect(counted.used_today).toBe(1);
        } else {
          // Started again on the same DATA_DIR: the key is known and its count went on.
          const again = await read(stack.base);
          expect(again.status, await again.clone().text()).toBe(200);
          const tier = ((await again.json()) as { tier: { used_today: number; reset_at: string } }).tier;
          // The same UTC day (one reset time): the count went on; a day that ended between the two starts counts afresh.
          expect(tier.used_today).toBe(tier.reset_at === counted.reset_at ? 2 : 1);
        }
      } catch (err) {
        // A failed check must not leave this start's stack running (its database and bus would outlive the file).
        await stack.stop();
        throw err;
      }
      const pids = [...childrenOf(stack.child.pid!).map((c) => c.pid), databasePid(dir)!];
      expect(pids.length).toBeGreaterThanOrEqual(8); // six services, nats-server, the database server
      expect(await stack.stop(), stack.output()).toBe(0);
      await sleep(200);
      expect(pids.filter(alive), `left running after Ctrl-C:\n${stack.output()}`).toEqual([]);
      expect(fs.existsSync(path.join(dir, "postgres", "postmaster.pid"))).toBe(false);
    }
    console.log(`default stack: first free read after start, ms: cold ${cold.join(", ")} (median ${median(cold)}); warm ${warm.join(", ")} (median ${median(warm)})`);
  }, 900_000);

  it("a launcher killed outright: the next start with its DATA_DIR stops what it left running (services, nats-server, the database server) and serves", async () => {
    const dir = tmp("orphan");
    dirs.push(dir);
    const first = await launchStack(dir);
    const db = databasePid(dir)!;
    const left = [...childrenOf(first.child.pid!).map((c) => c.pid), db];
    // SIGKILL: the launcher cannot stop its children, which hold the data directory and their ports.
    first.child.kill("SIGKILL");
    await sleep(300);
    expect(left.filter(alive)).toEqual(left);
    const second = await launchStack(dir);
    expect(second.output()).toContain("was killed and left");
    expect(second.output()).toContain("still holds");
    expect(left.filter(alive)).toEqual([]);
    expect(await second.stop()).toBe(0);
  }, 600_000);

  it("makes again a data directory left half made (a start killed during initdb), and refuses one of another PostgreSQL version with what to do", async () => {
    const half = tmp("half");
    dirs.push(half);
    fs.mkdirSync(path.join(half, "postgres"), { recursive: true });
    fs.writeFileSync(path.join(half, "postgres", "PG_VERSION"), "17\n");
    fs.mkdirSync(path.join(half, "postgres", "base"));
    const stack = await launchStack(half, { DEV_CHAINS: "off" });
    expect(stack.output()).toContain("left half made by a start that did not finish: making it again");
    expect(await stack.stop()).toBe(0);

    const older = tmp("older");
    dirs.push(older);
    fs.mkdirSync(path.join(older, "postgres"), { recursive: true });
    fs.writeFileSync(path.join(older, "postgres", "PG_VERSION"), "15\n");
    await expect(launchStack(older, { DEV_CHAINS: "off" }, 60_000)).rejects.toThrow(/holds a PostgreSQL 15 database[\s\S]*Move that folder aside/);
    expect(fs.readFileSync(path.join(older, "postgres", "PG_VERSION"), "utf8")).toBe("15\n");
  }, 300_000);

  it("stops the start with the service's own error when its configuration is bad (fail fast)", async () => {
    const dir = tmp("badconfig");
    dirs.push(dir);
    await expect(launchStack(dir, { BUS_TIMEOUT_MS: "not-a-number", DEV_CHAINS: "off" }, 60_000)).rejects.toThrow(/BUS_TIMEOUT_MS[\s\S]*exited before it was ready/);
    expect(databasePid(dir)).toBeNull();
  }, 120_000);
});

describe("npm start under load and faults", () => {
  let stack: LaunchedStack;
  let nc: NatsConnection;
  let vocab: Vocabulary;

  beforeAll(async () => {
    const dir = tmp("load");
    dirs.push(dir);
    // The fuzz below asks POST /api/key for dozens of keys from one address: the hourly limit on new keys and sign-ins per address is lifted here.
    // Every request here comes from one address (127.0.0.1), and a keyed or paid read spends that
    // address's burst before anything else: lifted too, or the bursts below drain it and what follows
    // is refused 429 by how fast the machine ran them (the limits have tests of their own).
    stack = await launchStack(dir, {
      FREE_KEYS_PER_ADDRESS_PER_HOUR: "1000000",
      SIGN_INS_PER_ADDRESS_PER_HOUR: "1000000",
      ANON_BURST_CAPACITY: "100000",
      ANON_BURST_PER_SECOND: "100000",
    });
    const operator = fs.readFileSync(path.join(dir, "nats", "auth", "operator.nk"), "utf8").trim();
    nc = await connect({ servers: stack.natsUrl, authenticator: nkeyAuthenticator(new TextEncoder().encode(operator)), inboxPrefix: inboxPrefixOf("operator") });
    vocab = await vocabulary(stack.base, nc);
  }, 300_000);

  afterAll(async () => {
    await nc?.close();
    if (stack) expect(await stack.stop()).toBe(0);
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  const freeKey = async (email: string) => {
    for (let attempt = 0; ; attempt++) {
      const res = await fetch(`${stack.base}/api/key`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email }) });
      // Keys are issued at a limited pace per address: this file asks for several from one.
      if (res.status === 429 && attempt < 3) {
        await res.arrayBuffer();
        await sleep(Number(res.headers.get("retry-after") ?? "1") * 1000);
        continue;
      }
      expect(res.status).toBe(201);
      return ((await res.json()) as { key: string }).key;
    }
  };
  const keyed = (key: string, p = "/api/board/regime") => fetch(`${stack.base}${p}`, { headers: { "x-board-key": key } });

  it("gives each service its own database role: board's credentials are refused on metering's and identity's schemas", async () => {
    const environ = (pid: number) => Object.fromEntries(fs.readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").filter(Boolean).map((kv) => [kv.slice(0, kv.indexOf("=")), kv.slice(kv.indexOf("=") + 1)]));
    const urls = Object.fromEntries(["board", "identity", "metering", "payments"].map((s) => [s, environ(servicePid(stack.child.pid!, s)).DATABASE_URL!]));
    expect(new Set(Object.values(urls).map((u) => new URL(u).username))).toEqual(new Set(["board", "identity", "metering", "payments"]));
    const board = new pg.Client({ connectionString: urls.board });
    await board.connect();
    try {
      expect((await board.query("select count(*)::int as n from board.snapshots")).rows[0].n).toBeGreaterThan(0);
      for (const q of ["select * from metering.daily limit 1", "select * from identity.board_keys limit 1", "create table payments.stolen (x int)", "create schema mine"]) {
        await expect(board.query(q), q).rejects.toMatchObject({ code: "42501" });
      }
    } finally {
      await board.end();
    }
  });

  it("serves the pages: /docs and /audit, the landing page's links, a free name's chart drawn from the scanner's series (its last close the delayed board's), its sector's members", async () => {
    const page = async (p: string) => {
      const res = await fetch(`${stack.base}${p}`);
      return { status: res.status, type: res.headers.get("content-type"), csp: res.headers.get("content-security-policy"), body: await res.text() };
    };
    const docs = await page("/docs");
    expect(docs.status, docs.body.slice(0, 300)).toBe(200);
    expect(docs.type).toBe("text/html; charset=utf-8");
    expect(docs.csp).toContain("default-src 'none'");
    expect(docs.csp).not.toContain("unsafe");
    const audit = await page("/audit");
    expect(audit.status, audit.body.slice(0, 300)).toBe(200);
    expect(audit.type).toBe("text/html; charset=utf-8");

    // The scanner publishes each closing board's series just after the board: poll (bounded) until
    // the free slice's first name is drawn from them, on the delayed board the free slice shows.
    let sym = "";
    let free: FreeBoard | undefined;
    let record: NameRecord | undefined;
    let name = { status: 0, body: "" };
    let closes: { date: string; close: number }[] = [];
    for (const t0 = Date.now(); ; await sleep(1000)) {
      free = FreeBoard.parse(await ok(await fetch(`${stack.base}/api/board/free`), "free"));
      // A name with a sector page (an index fund has none).
      const tops = free.book_order.flatMap((b) => free!.books[b]!.top);
      record = tops.find((r) => r.sector !== "Index") ?? tops[0]!;
      sym = record.sym;
      name = await page(`/board/${sym}`);
      const g = /<g class="closes">([\s\S]*?)<\/g>/.exec(name.body)?.[1] ?? "";
      closes = [...g.matchAll(/data-date="([\d-]+)" data-close="([^"]+)"/g)].map((m) => ({ date: m[1]!, close: Number(m[2]) }));
      if ((name.status === 200 && closes.length >= 200 && closes.at(-1)!.date === free.asof_daily) || Date.now() - t0 > 120_000) break;
    }
    expect(name.status, name.body.slice(0, 300)).toBe(200);
    expect(closes.length, `no chart on /board/${sym} within 120 s`).toBeGreaterThanOrEqual(200);
    expect(name.body).toContain(`data-sessions="${closes.length}"`);
    // The plotted closes are the series the scanner published for the delayed board's session, and
    // the last one is the close the delayed board serves for that name (to the cent, as it gives it).
    // Read as the gateway reads it (the operator manages the stream but may not read its messages).
    const seed = fs.readFileSync(path.join(stack.dataDir, "nats", "auth", "gateway.nk"), "utf8").trim();
    const asGateway = await connect({ servers: stack.natsUrl, authenticator: nkeyAuthenticator(new TextEncoder().encode(seed)), inboxPrefix: inboxPrefixOf("gateway") });
    let published: NameSeries;
    try {
      const m = await (await asGateway.jetstreamManager()).streams.getMessage(SERIES_STREAM, { last_by_subj: seriesSubject(free!.asof_daily, sym) });
      published = NameSeries.parse(JSON.parse(new TextDecoder().decode(m.data)));
    } finally {
      await asGateway.close();
    }
    expect(closes).toEqual(published.dates.map((date, i) => ({ date, close: published.close[i]! })));
    expect(closes.at(-1)!.date).toBe(free!.asof_daily);
    expect(closes.at(-1)!.close).toBeCloseTo(record!.price, 2);

    // The landing page links every free name to its page, and the sectors (heat map) to theirs.
    const landing = (await page("/")).body;
    for (const b of free!.book_order) for (const r of free!.books[b]!.top) expect(landing).toContain(`href="/board/${r.sym}"`);
    for (const p of ["/docs", "/audit"]) expect(landing).toContain(`href="${p}"`);
    const sectorLinks = [...new Set([...landing.matchAll(/href="(\/board\/sector\/[a-z0-9-]+)"/g)].map((m) => m[1]!))];
    expect(sectorLinks.length).toBeGreaterThan(0);
    // The name's own sector page lists it among its members; a sector of the heat map lists its own.
    const own = /data-sector-link[^>]*href="([^"]+)"|href="([^"]+)"[^>]*data-sector-link/.exec(name.body);
    const ownPath = own?.[1] ?? own?.[2];
    expect(ownPath, "the name page links to its sector").toMatch(/^\/board\/sector\//);
    for (const p of new Set([ownPath!, sectorLinks[0]!])) {
      const sector = await page(p);
      expect(sector.status, `${p}: ${sector.body.slice(0, 300)}`).toBe(200);
      expect(sector.type).toBe("text/html; charset=utf-8");
      const members = [...sector.body.matchAll(/<tr data-sym="([^"]+)"/g)].map((m) => m[1]!);
      expect(members.length, p).toBeGreaterThan(0);
      for (const m of members) expect(sector.body).toContain(`href="/board/${m}"`);
      if (p === ownPath) expect(members).toContain(sym);
    }
  }, 180_000);

  it("30 concurrent reads on one free key: at most 25 served, the rest 429 with Retry-After, no 5xx; reads go on after it", async () => {
    const key = await freeKey(`burst-${Date.now()}@example.com`);
    const answers = await Promise.all(Array.from({ length: 30 }, () => keyed(key)));
    const statuses = answers.map((r) => r.status);
    const served = statuses.filter((s) => s === 200).length;
    expect(statuses.filter((s) => s >= 500), statuses.join(" ")).toEqual([]);
    expect(served).toBeGreaterThan(0);
    expect(served).toBeLessThanOrEqual(25);
    for (const r of answers.filter((a) => a.status !== 200)) {
      expect(r.status).toBe(429);
      expect(Number(r.headers.get("retry-after"))).toBeGreaterThan(0);
    }
    await Promise.all(answers.map((r) => r.arrayBuffer()));
    // Sequential reads afterwards, on a new key: served (a broken database session would fail every one).
    const next = await freeKey(`after-${Date.now()}@example.com`);
    for (let i = 0; i < 12; i++) expect((await keyed(next)).status).toBe(200);
  });

  it("20 concurrent copies of one payment: one settlement, no 5xx", async () => {
    const wallets = readDevWallets(path.join(stack.dataDir, "dev-wallets.json"));
    const account = privateKeyToAccount(wallets.base.buyer.private_key as Hex);
    const res = await fetch(`${stack.base}/api/board/regime`);
    expect(res.status).toBe(402);
    const pr = decodePaymentRequiredHeader(res.headers.get("payment-required")!);
    pr.accepts = pr.accepts.filter((a) => a.network === "eip155:8453" && a.extra?.name !== "GatewayWalletBatched").slice(0, 1);
    const payload = await new x402Client().register("eip155:*", new ExactEvmScheme(account)).createPaymentPayload(pr);
    const header = encodePaymentSignatureHeader(payload);
    const { nonce } = (payload.payload as { authorization: { nonce: Hex } }).authorization;
    const answers = await Promise.all(Array.from({ length: 20 }, () => fetch(`${stack.base}/api/board/regime`, { headers: { "payment-signature": header } })));
    const statuses = answers.map((r) => r.status);
    await Promise.all(answers.map((r) => r.arrayBuffer()));
    expect(statuses.filter((s) => s >= 500), statuses.join(" ")).toEqual([]);
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(1);
    const chain = createPublicClient({ transport: viemHttp(wallets.base.rpc_url) });
    const used = await chain.getLogs({
      address: wallets.base.usdc as Hex,
      event: parseAbiItem("event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)"),
      args: { authorizer: account.address, nonce },
      fromBlock: 0n,
    });
    expect(used).toHaveLength(1);
  });

  it("3,000 fuzzed requests at concurrency 8: no 5xx", async () => {
    const failures: string[] = [];
    let sent = 0;
    await Promise.all(
      Array.from({ length: 8 }, (_, lane) =>
        fc.assert(
          fc.asyncProperty(requestArb(ROUTES, vocab), async (r) => {
            sent++;
            const status = await send(vocab.base, r);
            if (status >= 500) failures.push(`${status} ${r.method} ${r.path}${r.query === null ? "" : `?${r.query}`.slice(0, 200)}`);
          }),
          { seed: 20_261_127 + lane, numRuns: 375, endOnFailure: true },
        ),
      ),
    );
    expect(sent).toBe(3000);
    expect(failures).toEqual([]);
  }, 600_000);

  it("200 concurrent reads mixed across the tiers: no 5xx", async () => {
    const keys: string[] = [];
    for (const i of [1, 2, 3, 4]) keys.push(await freeKey(`mixed-${i}-${Date.now()}@example.com`));
    const reads: (() => Promise<Response>)[] = [];
    for (let i = 0; i < 200; i++) {
      const pick = i % 8;
      const at = (p: string, headers: Record<string, string> = {}) => () => fetch(`${stack.base}${p}`, { headers });
      reads.push(
        [
          at("/api/board/free"),
          at("/api/board/agent?preview=1"),
          at("/api/board/regime", { "x-board-key": keys[i % keys.length]! }),
          at("/api/board/indices", { "sign-in-with-x": vocab.siwx[i % vocab.siwx.length]! }),
          at("/api/board/sectors", { "x-license-key": vocab.licenseKeys[0]! }),
          at("/api/board/regime", { authorization: `Bearer ${vocab.bearers[0]!}` }),
          at("/api/board/regime"), // the 402
          at("/api/board/status"),
        ][pick]!,
      );
    }
    const answers = await Promise.all(reads.map((r) => r()));
    const statuses = answers.map((r) => r.status);
    await Promise.all(answers.map((r) => r.arrayBuffer()));
    expect(statuses.filter((s) => s >= 500), statuses.join(" ")).toEqual([]);
    // One address sends all 200: past its burst the rest are refused 429 with Retry-After, as documented.
    expect(statuses.filter((s) => ![200, 402, 429].includes(s)), statuses.join(" ")).toEqual([]);
    for (const r of answers.filter((a) => a.status === 429)) expect(Number(r.headers.get("retry-after"))).toBeGreaterThan(0);
    // How many are served depends on what the earlier tests left of the address's bucket (40, 20/s).
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThan(0);
  });

  it("a killed service is restarted by the launcher and its reads come back", async () => {
    const board = servicePid(stack.child.pid!, "board");
    process.kill(board, "SIGKILL");
    const t0 = Date.now();
    let back = 0;
    while (Date.now() - t0 < 60_000) {
      const res = await fetch(`${stack.base}/api/board/free`).catch(() => null);
      const status = res?.status ?? 0;
      await res?.arrayBuffer();
      if (status === 200 && servicePid(stack.child.pid!, "board") !== board) {
        back = Date.now() - t0;
        break;
      }
      await sleep(100);
    }
    expect(back, stack.output()).toBeGreaterThan(0);
    expect(stack.output()).toMatch(/board exited \(SIGKILL\); restarting it in [\d.]+ s/);
    expect(stack.child.exitCode).toBeNull();
    console.log(`default stack: board killed, reads back in ${back} ms`);
  }, 90_000);

  it("the database server killed: keyed reads answer 503 with Retry-After meanwhile, then recover; nothing counted, claimed or charged is lost", async () => {
    const key = await freeKey(`dbkill-${Date.now()}@example.com`);
    for (let i = 0; i < 3; i++) expect((await keyed(key)).status).toBe(200);
    const wallets = readDevWallets(path.join(stack.dataDir, "dev-wallets.json"));
    const paid = await payOnce(stack.base, wallets.base.buyer.private_key as Hex);
    expect(paid.first).toBe(200);

    const db = databasePid(stack.dataDir)!;
    process.kill(db, "SIGKILL");
    const during: number[] = [];
    const t0 = Date.now();
    let recovered = 0;
    while (Date.now() - t0 < 90_000) {
      const res = await keyed(key).catch(() => null);
      const status = res?.status ?? 0;
      if (status === 503) expect(Number(res!.headers.get("retry-after"))).toBeGreaterThan(0);
      await res?.arrayBuffer();
      // Recovered: a new server runs (not merely none: a backend of the killed one can still answer a read).
      const now = databasePid(stack.dataDir);
      if (status === 200 && now !== null && now !== db) {
        recovered = Date.now() - t0;
        break;
      }
      during.push(status);
      await sleep(100);
    }
    expect(recovered, stack.output()).toBeGreaterThan(0);
    // A backend of the killed server may answer a read or two before it notices its end; from
    // then until the new server runs, every read is 503 with Retry-After.
    const firstRefusal = during.findIndex((s) => s !== 200);
    const meanwhile = firstRefusal === -1 ? [] : during.slice(firstRefusal);
    expect(meanwhile.filter((s) => s !== 503), during.join(" ")).toEqual([]);
    // The launcher's line may still be on its way through the pipe.
    for (let i = 0; i < 50 && !/database exited \(SIGKILL\); restarting it/.test(stack.output()); i++) await sleep(100);
    expect(stack.output()).toMatch(/database exited \(SIGKILL\); restarting it/);
    // The count kept: 3 before, any answered by the killed server's backend, the read that came back, one more now.
    const answeredMeanwhile = firstRefusal === -1 ? during.length : firstRefusal;
    const after = await keyed(key);
    const body = (await after.json()) as { tier: { used_today: number } };
    expect(body.tier.used_today).toBe(5 + answeredMeanwhile);
    // The payment made before the outage is still claimed and settled: sent again, it is delivered, not charged again.
    const again = await fetch(`${stack.base}/api/board/regime`, { headers: { "payment-signature": paid.header } });
    expect(again.status).toBe(200);
    expect(again.headers.get("payment-redelivery")).toBe("1");
    await again.arrayBuffer();
    console.log(`default stack: database server killed, keyed reads 503 ${during.length} times, back in ${recovered} ms`);
  }, 120_000);
});

/** One paid read of /api/board/regime on Base with the development buyer. */
async function payOnce(base: string, key: Hex): Promise<{ header: string; first: number }> {
  const res = await fetch(`${base}/api/board/regime`);
  const pr = decodePaymentRequiredHeader(res.headers.get("payment-required")!);
  pr.accepts = pr.accepts.filter((a) => a.network === "eip155:8453" && a.extra?.name !== "GatewayWalletBatched").slice(0, 1);
  const payload = await new x402Client().register("eip155:*", new ExactEvmScheme(privateKeyToAccount(key))).createPaymentPayload(pr);
  const header = encodePaymentSignatureHeader(payload);
  const paid = await fetch(`${base}/api/board/regime`, { headers: { "payment-signature": header } });
  await paid.arrayBuffer();
  return { header, first: paid.status };
}

/** Sends a fuzzed request; an event stream is read up to its first bytes, then hung up. */
async function send(base: string, r: FuzzRequest): Promise<number> {
  const stop = new AbortController();
  const res = await fetch(`${base}${r.path}${r.query === null ? "" : `?${r.query}`}`, {
    method: r.method,
    headers: r.headers,
    body: r.body,
    redirect: "manual",
    signal: AbortSignal.any([stop.signal, AbortSignal.timeout(20_000)]),
  });
  if (res.headers.get("content-type")?.startsWith("text/event-stream")) stop.abort();
  else await res.arrayBuffer();
  return res.status;
}

async function ok<T>(res: Response, what: string): Promise<T> {
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${what}: ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as T;
}

/** What the fuzzer builds plausible values from, taken from the running stack (as the integration fuzz suite does). */
async function vocabulary(base: string, nc: NatsConnection): Promise<Vocabulary> {
  const issue = (kind: "scanner" | "live_feed"): Promise<LicenseIssueReply> => request(nc, identityLicenseIssue, { kind, period: "monthly", holder: "default-stack" }, { timeoutMs: 5000 });
  const licenses = [await issue("scanner"), await issue("live_feed")];
  const clients = licenses.map((l) => ({ id: l.license.client_id, secret: l.key }));
  const bearers: string[] = [];
  for (const c of clients) {
    const body = new URLSearchParams({ grant_type: "client_credentials", client_id: c.id, client_secret: c.secret });
    const res = await fetch(`${base}/oauth/token`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body });
    bearers.push((await ok<{ access_token: string }>(res, "token")).access_token);
  }
  const jwks = await ok<{ keys: { kid?: string }[] }>(await fetch(`${base}/oauth/jwks`), "jwks");
  const freeKeys: string[] = [];
  for (const email of ["fuzz-1@example.com", "fuzz-2@example.com"]) {
    const res = await fetch(`${base}/api/key`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email }) });
    freeKeys.push((await ok<{ key: string }>(res, "free key")).key);
  }
  const directory = await ok<{ symbols: { sym: string }[] }>(await fetch(`${base}/api/board/symbols`), "symbols");
  const sectors = await ok<{ sectors: { sym: string }[] }>(await fetch(`${base}/api/board/sectors`, { headers: { "x-license-key": clients[0]!.secret } }), "sectors");
  const status = await ok<{ asof_daily: string }>(await fetch(`${base}/api/board/status`), "status");
  const proof = await ok<{ entries: { content_hash: string }[] }>(await fetch(`${base}/api/board/proof`), "proof");
  const hashes = proof.entries.map((c) => c.content_hash);
  const symbols = directory.symbols.map((s) => s.sym);
  const sellingQuery = (route: Route) => {
    const shape = route.query.shape as Record<string, unknown>;
    return new URLSearchParams({
      ...("sym" in shape && { sym: symbols[0]! }),
      ...("date" in shape && { date: status.asof_daily }),
      ...("since" in shape && hashes[0] && { since: hashes[0] }),
    }).toString();
  };
  const offers = new Map<string, { accepts: Record<string, unknown>[]; resource: Record<string, unknown> }>();
  const mppChallenges = new Map<string, Challenge.Challenge>();
  let siwxInfo: SIWxExtension["info"] | undefined;
  for (const route of PAID_ROUTES) {
    const q = sellingQuery(route);
    const res = await fetch(`${base}${route.path}${q ? `?${q}` : ""}`);
    await res.arrayBuffer();
    if (res.status !== 402) continue;
    const offer = decodePaymentRequiredHeader(res.headers.get("payment-required")!);
    offers.set(route.path, { accepts: offer.accepts as unknown as Record<string, unknown>[], resource: offer.resource as unknown as Record<string, unknown> });
    mppChallenges.set(route.path, Challenge.fromResponse(res));
    siwxInfo ??= (offer.extensions?.["sign-in-with-x"] as SIWxExtension | undefined)?.info;
  }
  if (!siwxInfo) throw new Error("the 402 carries no sign-in-with-x challenge");
  const siwx: string[] = [];
  for (let i = 0; i < 2; i++) {
    const payload = await createSIWxPayload({ ...siwxInfo, chainId: "eip155:8453", type: "eip191" }, privateKeyToAccount(generatePrivateKey()), `${base}/api/board/regime`);
    siwx.push(encodeSIWxHeader(payload));
  }
  const etag = (await fetch(`${base}/api/board/free`)).headers.get("etag");
  return {
    base,
    symbols,
    etfs: sectors.sectors.map((s) => s.sym),
    sectors: SectorLabel.options,
    dates: [status.asof_daily],
    boardHashes: hashes.length > 0 ? hashes : ["0".repeat(64)],
    freeKeys,
    licenseKeys: licenses.map((l) => l.key),
    clients,
    bearers,
    kids: jwks.keys.flatMap((k) => (k.kid ? [k.kid] : [])),
    siwx,
    siwxInfo: siwxInfo as unknown as Record<string, unknown>,
    offers,
    mppChallenges,
    etags: etag ? [etag] : [],
  };
}
