import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { BoardState, BoardStatus, ErrorBody, FreeBoard, FullBoard } from "@board/proto";
import { fixtureSnapshot, killHard, TestNatsServer } from "@board/service-kit/testing";
import { RequestStrategy, type NatsConnection } from "nats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { z } from "zod";
import { STALE_AFTER_SCANS } from "../../services/board/src/views/staleness.js";
import { Stack, until } from "./harness.js";

// Faults of the bus, under load, each on a nats-server of this file's own (never the shared
// test bus: other files' services would answer our requests, and we kill our server):
// 1. a board replica (a real process) SIGKILLed while readers hammer the gateway;
// 2. the nats-server SIGKILLed and restarted on the same port and store under load;
// 3. the scanner silent for a simulated hour: the board keeps serving, with an honest age.

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
/** The Stack's gateway BUS_TIMEOUT_MS: a request lost on the bus answers 504 after it. */
const BUS_TIMEOUT_MS = 2000;
/** The anonymous burst check (gateway access/meter.ts) holds a read at most this long, then fails open. */
const BURST_TIMEOUT_MS = 250;
/** Longest acceptable answer while the bus is broken: bus timeout + burst check + scheduling margin. */
const ANSWER_BOUND_MS = BUS_TIMEOUT_MS + BURST_TIMEOUT_MS + 1000;
/** A fetch still open after this is a hang: the test fails. */
const HANG_MS = 6000;

// ---------------------------------------------------------------- processes of this file

const children = new Set<ChildProcess>();

/**
 * A private nats-server (authorization on, as the suite's bus) on a fixed port and store, so it
 * can be killed and started again as "the same server".
 */
type PrivateNats = TestNatsServer;
const natsServers: TestNatsServer[] = [];
const PrivateNats = {
  async start(): Promise<PrivateNats> {
    const nats = await TestNatsServer.start();
    natsServers.push(nats);
    return nats;
  },
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The stack on this nats-server, with a board serving the two fixture days. */
async function startServingOn(stack: Stack, nats: PrivateNats): Promise<void> {
  await stack.start({ natsUrl: nats.url, natsSeeds: nats.seeds });
  await stack.startBoard();
  await stack.publishTwoDays();
  await until(() => stack.board!.publication()?.board.asof_daily === "2026-11-20" && stack.board!.publication()!.views.has("free"));
}

/** Stops a stack without letting a broken bus hold the hook: its drain may wait on a server that is gone. */
async function stopStack(stack: Stack): Promise<void> {
  await Promise.race([stack.stop().catch(() => undefined), sleep(15_000)]);
}

afterAll(async () => {
  // Whatever a failed test left behind: every process this file started, then its stores.
  await Promise.all([...children].map((c) => killHard(c)));
  await Promise.all(natsServers.map((n) => n.stop()));
});

// ---------------------------------------------------------------- readers

interface Watched {
  path: string;
  /** The proto schema of the view's 200 body. */
  schema: z.ZodType;
  /** The view's 200 body without its freshness block, as the current snapshot renders it. */
  reference: string;
  etag: string;
}

interface Sample {
  path: string;
  start: number;
  end: number;
  /** HTTP status, or "hang" (the fetch's limit fired) or "network" (no HTTP answer at all). */
  status: number | "hang" | "network";
}

const withoutFreshness = (body: Record<string, unknown>) => JSON.stringify({ ...body, freshness: null });

/** Fetches each path once and keeps its body as the reference every later 200 must equal. */
async function references(base: string, views: { path: string; schema: z.ZodType; asof: string }[]): Promise<Watched[]> {
  return Promise.all(
    views.map(async (v) => {
      const res = await fetch(`${base}${v.path}`, { signal: AbortSignal.timeout(HANG_MS) });
      expect(res.status, v.path).toBe(200);
      const body = v.schema.parse(await res.json()) as Record<string, unknown>;
      expect(body.asof_daily, v.path).toBe(v.asof);
      return { path: v.path, schema: v.schema, reference: withoutFreshness(body), etag: res.headers.get("etag") ?? "" };
    }),
  );
}

/**
 * Concurrent readers of the gateway, round-robin over the watched paths, each fetch with a
 * time limit. Every answer is checked as it comes: a 200 must parse with its view's schema and
 * be the reference snapshot's (same body but for freshness, same ETag); a 503/504 must carry
 * the error body of its status; anything else is a problem.
 */
class Readers {
  readonly samples: Sample[] = [];
  readonly problems: string[] = [];
  private running = true;
  private readonly workers: Promise<void>[];

  constructor(
    private readonly base: string,
    private readonly watched: Watched[],
    readers: number,
  ) {
    this.workers = Array.from({ length: readers }, (_, i) => this.work(i));
  }

  private async work(offset: number) {
    for (let i = offset; this.running; i++) await this.once(this.watched[i % this.watched.length]!);
  }

  /** One checked read, recorded with the others. */
  async once(w: Watched): Promise<void> {
    const start = performance.now();
    let status: Sample["status"];
    try {
      const res = await fetch(`${this.base}${w.path}`, { signal: AbortSignal.timeout(HANG_MS) });
      const text = await res.text();
      status = res.status;
      this.check(w, res, text);
    } catch (err) {
      status = (err as Error).name === "TimeoutError" ? "hang" : "network";
      this.problems.push(`${w.path}: ${status} after ${Math.round(performance.now() - start)} ms (${(err as Error).message})`);
    }
    this.samples.push({ path: w.path, start, end: performance.now(), status });
  }

  /** Extra reads fired every `everyMs` until `until` passes (the readers themselves may sit in a timeout). */
  async probe(everyMs: number, until: number): Promise<void> {
    const fired: Promise<void>[] = [];
    for (let i = 0; performance.now() < until; i++) {
      fired.push(this.once(this.watched[i % this.watched.length]!));
      await sleep(everyMs);
    }
    await Promise.all(fired);
  }

  private check(w: Watched, res: Response, text: string) {
    try {
      if (res.status === 200) {
        const body = w.schema.parse(JSON.parse(text)) as Record<string, unknown>;
        if (withoutFreshness(body) !== w.reference) this.problems.push(`${w.path}: a 200 that is not the current snapshot's view`);
        if (res.headers.get("etag") !== w.etag) this.problems.push(`${w.path}: ETag ${res.headers.get("etag")} instead of ${w.etag}`);
      } else if (res.status === 503 || res.status === 504) {
        const { error } = ErrorBody.parse(JSON.parse(text));
        const want = res.status === 503 ? "service_unavailable" : "upstream_timeout";
        if (error.code !== want || error.status !== res.status) this.problems.push(`${w.path}: ${res.status} with error ${error.code}/${error.status}`);
        if (res.headers.get("retry-after") === null) this.problems.push(`${w.path}: ${res.status} without Retry-After`);
      } else {
        this.problems.push(`${w.path}: status ${res.status}: ${text.slice(0, 200)}`);
      }
    } catch (err) {
      this.problems.push(`${w.path}: ${res.status} body fails its schema: ${(err as Error).message.slice(0, 300)}`);
    }
  }

  count(pred: (s: Sample) => boolean) {
    return this.samples.filter(pred).length;
  }

  async stop() {
    this.running = false;
    await Promise.all(this.workers);
  }
}

const ok = (s: Sample) => s.status === 200;
const statuses = (samples: Sample[]) => {
  const out: Record<string, number> = {};
  for (const s of samples) out[String(s.status)] = (out[String(s.status)] ?? 0) + 1;
  return out;
};
const ms = (x: number) => Math.round(x);

/** The views every scenario reads: two board views cut from the previous day, and the state hashes of the current one. */
function loadViews(current: string, previous: string) {
  return [
    { path: "/api/board/free", schema: FreeBoard, asof: previous },
    { path: "/api/board/agent?preview=1", schema: FullBoard, asof: previous },
    { path: "/api/board/state", schema: BoardState, asof: current },
  ];
}

/** Board replicas on the bus, by instance name, with the reads each has answered. */
async function boardInstances(nc: NatsConnection): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  const stats = await nc.services.client({ strategy: RequestStrategy.Timer, maxWait: 500 }).stats("board");
  for await (const s of stats) {
    const reads = s.endpoints?.find((e) => e.subject === "board.v1.read")?.num_requests ?? 0;
    out.set(s.metadata?.instance ?? s.id, reads);
  }
  return out;
}

// ---------------------------------------------------------------- 1. a board replica killed

describe("a board replica killed under load", () => {
  let nats: PrivateNats;
  const stack = new Stack();
  let victim: ChildProcess | null = null;
  const victimName = `board-victim-${process.pid}`;

  beforeAll(async () => {
    nats = await PrivateNats.start();
    await startServingOn(stack, nats);
  });
  afterAll(async () => {
    if (victim) await killHard(victim);
    await stopStack(stack);
    await nats?.kill();
  });

  it("the other replica keeps serving: no read lost but those in flight at the kill, never a wrong body", async () => {
    // The second replica is a real process (the service's own main.ts), so it can be SIGKILLed:
    // its TCP connection drops with no unsubscribe, no drain, replies in flight are lost.
    victim = spawn(process.execPath, ["--import", "tsx", "services/board/src/main.ts"], {
      cwd: ROOT,
      env: { ...stack.busEnv("board"), DATABASE_URL: stack.databaseUrl, HEALTH_PORT: "0", LOG_LEVEL: "warn", INSTANCE_ID: victimName },
      stdio: ["ignore", "ignore", "pipe"],
    });
    children.add(victim);
    let victimErr = "";
    victim.stderr?.on("data", (d: Buffer) => (victimErr = (victimErr + d.toString()).slice(-2000)));
    await until(async () => {
      if (victim!.exitCode !== null) throw new Error(`the second board replica exited: ${victimErr}`);
      return (await boardInstances(stack.nc)).size === 2;
    }, 30_000);
    const survivor = stack.board!.runtime.instance;

    const watched = await references(stack.base, loadViews("2026-11-20", "2026-11-19"));
    const load = new Readers(stack.base, watched, 6);
    try {
      // Both replicas must be taking reads before one dies, or the kill proves nothing.
      const served = () => boardInstances(stack.nc);
      await until(async () => {
        const s = await served();
        return load.count(ok) >= 60 && (s.get(victimName) ?? 0) >= 10 && (s.get(survivor) ?? 0) >= 10;
      }, 15_000);
      const before = await served();

      const killedAt = performance.now();
      await killHard(victim);
      const killDone = performance.now();
      await sleep(3000);
      await load.stop();
      const end = performance.now();

      // The victim is gone from the bus, and the survivor's own endpoint counted the reads made after the kill (identical reads in
      // flight at once share one board read in the gateway: not one per read).
      const after = await served();
      expect([...after.keys()]).toEqual([survivor]);

      const pre = load.samples.filter((s) => s.end < killedAt);
      const inFlight = load.samples.filter((s) => s.start < killedAt && s.end >= killedAt);
      const settled = killDone + 500;
      const switching = load.samples.filter((s) => s.start >= killedAt && s.start < settled);
      const post = load.samples.filter((s) => s.start >= settled);
      const failures = load.samples.filter((s) => s.end >= killedAt && !ok(s));
      const lastFailureEnd = Math.max(killedAt, ...failures.map((s) => s.end));
      const firstOkAfter = Math.min(...load.samples.filter((s) => s.start >= killedAt && ok(s)).map((s) => s.end));
      const figures = {
        before_reads: Object.fromEntries(before),
        pre: statuses(pre),
        in_flight_at_kill: statuses(inFlight),
        switching_first_500ms: statuses(switching),
        post: statuses(post),
        first_200_after_kill_ms: ms(firstOkAfter - killedAt),
        last_failure_after_kill_ms: ms(lastFailureEnd - killedAt),
        slowest_failure_ms: ms(Math.max(0, ...failures.map((s) => s.end - s.start))),
        post_kill_ok_share: (post.filter(ok).length / post.length).toFixed(3),
        run_ms: ms(end - killedAt),
      };
      console.log("[faults-bus] replica kill:", JSON.stringify(figures));

      expect(load.problems).toEqual([]); // no wrong body, no status but 200/503/504, no hang
      expect(pre.length).toBeGreaterThanOrEqual(60);
      expect(post.length).toBeGreaterThanOrEqual(60);
      expect(pre.every(ok)).toBe(true);
      // Only a read the victim held when it died may fail, and it fails as a timeout, within the bound.
      for (const s of failures) {
        expect(s.start, "a failed read started after the kill").toBeLessThan(settled);
        expect(s.end - s.start).toBeLessThan(ANSWER_BOUND_MS);
      }
      // Every read that starts once the server has dropped the victim is the survivor's 200.
      expect(post.every(ok)).toBe(true);
      const survivorReads = after.get(survivor)! - before.get(survivor)!;
      expect(survivorReads).toBeGreaterThan(0);
      // The survivor answers within one bus timeout even when every lane was waiting on the victim.
      expect(firstOkAfter - killedAt).toBeLessThan(BUS_TIMEOUT_MS + 1000);
      expect(lastFailureEnd - killedAt).toBeLessThan(BUS_TIMEOUT_MS + 1000);
    } finally {
      await load.stop();
    }
  });
});

// ---------------------------------------------------------------- 2. NATS restarted

describe("the nats-server killed and restarted under load", () => {
  let nats: PrivateNats;
  const stack = new Stack();

  beforeAll(async () => {
    nats = await PrivateNats.start();
    await startServingOn(stack, nats);
  });
  afterAll(async () => {
    // A drain needs a server: bring it back if a failure left it down, then stop everything.
    if (nats && !nats.running) await nats.up().catch(() => undefined);
    await stopStack(stack);
    await nats?.kill();
  });

  it("every read in the outage answers 503/504 in bounded time, the same services reconnect and serve, the consumer resumes", async () => {
    const gateway = stack.gateway;
    const board = stack.board!;
    const busOf = { gateway: gateway.runtime.bus.nc, board: board.runtime.bus.nc };
    const ready = async (port: number) => (await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(HANG_MS) })).status;

    const watched = await references(stack.base, loadViews("2026-11-20", "2026-11-19"));
    const load = new Readers(stack.base, watched, 6);
    try {
      await until(() => load.count(ok) >= 60, 15_000);

      const killedAt = performance.now();
      await nats.kill();
      const restartAt = killedAt + 1500;
      // Reads made while the server is down (the readers themselves soon sit in a bus timeout).
      const probes = load.probe(150, restartAt);
      await until(() => !board.runtime.bus.connected() && !gateway.runtime.bus.connected(), 5_000);
      // The outage as the services' readiness sees it.
      expect(await ready(board.runtime.health.port)).toBe(503);
      expect(await ready(gateway.runtime.health.port)).toBe(503);
      await sleep(Math.max(0, restartAt - performance.now()));
      const restartedAt = performance.now();
      await nats.up();
      const listening = performance.now();
      await probes;

      // Back to 200 without a restart of any service.
      await until(() => load.samples.some((s) => s.start >= listening && ok(s)), 10_000);
      // Until 60 reads in a row have been 200s since the last failure (the reconnect may still cost a few).
      const streak = () => {
        let n = 0;
        for (let i = load.samples.length - 1; i >= 0 && ok(load.samples[i]!); i--) n++;
        return n;
      };
      // Reads sent into the outage before the services noticed it answer 504 up to a bus timeout
      // after it: the streak counts once every one of them has answered.
      await until(() => performance.now() > listening + ANSWER_BOUND_MS && streak() >= 60, 20_000);
      await load.stop();

      const pre = load.samples.filter((s) => s.end < killedAt);
      const madeInOutage = load.samples.filter((s) => s.start >= killedAt && s.start < restartedAt);
      const answeredInOutage = madeInOutage.filter((s) => s.end < restartedAt);
      const touched = load.samples.filter((s) => s.end >= killedAt && s.start < listening);
      const failures = load.samples.filter((s) => !ok(s));
      const firstOk = Math.min(...load.samples.filter((s) => s.start >= listening && ok(s)).map((s) => s.end));
      const lastFailure = Math.max(restartedAt, ...failures.map((s) => s.end));
      const stable = load.samples.filter((s) => s.start >= lastFailure);
      const latency = (xs: Sample[]) => ({ min: ms(Math.min(...xs.map((s) => s.end - s.start))), max: ms(Math.max(...xs.map((s) => s.end - s.start))) });
      const figures = {
        pre: statuses(pre),
        made_in_outage: statuses(madeInOutage),
        answered_in_outage: statuses(answeredInOutage),
        made_in_outage_200_after_restart: madeInOutage.filter(ok).length,
        touched_by_outage: statuses(touched),
        failure_latency_ms: latency(failures),
        touched_latency_ms: latency(touched),
        after_restart: statuses(load.samples.filter((s) => s.start >= listening)),
        down_ms: ms(restartedAt - killedAt),
        restart_listening_ms: ms(listening - restartedAt),
        first_200_after_restart_ms: ms(firstOk - restartedAt),
        last_failure_after_restart_ms: ms(lastFailure - restartedAt),
        stable_reads: stable.length,
      };
      console.log("[faults-bus] nats restart:", JSON.stringify(figures));

      expect(load.problems).toEqual([]); // no hang, no wrong body, no status but 200/503/504
      expect(pre.length).toBeGreaterThanOrEqual(60);
      expect(pre.every(ok)).toBe(true);
      // Reads made while the server was down: each a 503/504, or a correct 200 answered once it was back.
      expect(madeInOutage.length).toBeGreaterThanOrEqual(8);
      for (const s of madeInOutage) expect(!ok(s) || s.end >= listening, `a 200 at ${ms(s.end - killedAt)} ms, server down`).toBe(true);
      expect(failures.length).toBeGreaterThanOrEqual(8);
      expect(failures.every((s) => s.status === 503 || s.status === 504)).toBe(true);
      // Fail fast: once the services know the bus is down, a read is refused at once (503), not after the bus timeout.
      const madeWhileKnownDown = madeInOutage.filter((s) => s.start >= killedAt + 500);
      expect(madeWhileKnownDown.length).toBeGreaterThanOrEqual(4);
      for (const s of madeWhileKnownDown) expect(s.end - s.start, `read at ${ms(s.start - killedAt)} ms into the outage`).toBeLessThan(1000);
      // Never a hang: everything the outage touched answered within bus timeout + burst check + margin.
      expect(Math.max(...touched.map((s) => s.end - s.start))).toBeLessThan(ANSWER_BOUND_MS);
      // Reconnected by themselves: the first 200 comes soon after the server is back, then only 200s.
      expect(firstOk - restartedAt).toBeLessThan(3000);
      expect(lastFailure - restartedAt).toBeLessThan(ANSWER_BOUND_MS + 1000);
      expect(stable.length).toBeGreaterThanOrEqual(60);
      expect(stable.every(ok)).toBe(true);
    } finally {
      await load.stop();
    }

    // The connections the services started with came back by themselves (reconnected, not replaced or restarted).
    expect(gateway.runtime.bus.nc).toBe(busOf.gateway);
    expect(board.runtime.bus.nc).toBe(busOf.board);
    expect(busOf.gateway.isClosed() || busOf.board.isClosed()).toBe(false);
    expect(board.runtime.bus.connected() && gateway.runtime.bus.connected()).toBe(true);
    expect(await ready(board.runtime.health.port)).toBe(200);
    expect(await ready(gateway.runtime.health.port)).toBe(200);

    // The snapshot consumer survived the server's restart: a board published now is stored and served.
    await until(async () => {
      try {
        await stack.publish(fixtureSnapshot({ asofDaily: "2026-11-23", computedAt: "2026-11-23T07:00:00-08:00", seed: 3 }));
        return true;
      } catch {
        return false;
      }
    }, 10_000);
    const publishedAt = performance.now();
    await until(() => board.publication()?.board.asof_daily === "2026-11-23", 10_000);
    console.log("[faults-bus] nats restart: new snapshot served after", ms(performance.now() - publishedAt), "ms");
    expect(await board.store.count()).toBe(3);
    const status = await fetch(`${stack.base}/api/board/status`, { signal: AbortSignal.timeout(HANG_MS) });
    expect(status.status).toBe(200);
    expect(BoardStatus.parse(await status.json()).asof_daily).toBe("2026-11-23");
    const free = await fetch(`${stack.base}/api/board/free`, { signal: AbortSignal.timeout(HANG_MS) });
    expect(FreeBoard.parse(await free.json()).asof_daily).toBe("2026-11-20");
  });
});

// ---------------------------------------------------------------- 3. the scanner silent for an hour

describe("the scanner down for a simulated hour", () => {
  let nats: PrivateNats;
  const stack = new Stack();
  // Friday 2026-11-20, a regular session: the current board was computed at 09:55 Pacific.
  const computedAt = Date.parse("2026-11-20T09:55:00-08:00");
  let nowMs = computedAt + 60_000;

  beforeAll(async () => {
    nats = await PrivateNats.start();
    await stack.start({ natsUrl: nats.url, natsSeeds: nats.seeds });
    await stack.startBoard({ now: () => new Date(nowMs) });
    await stack.publishTwoDays();
    await until(() => stack.board!.publication()?.board.asof_daily === "2026-11-20" && stack.board!.publication()!.views.has("free"));
  });
  afterAll(async () => {
    await stopStack(stack);
    await nats?.kill();
  });

  it("keeps serving the last snapshot, its data_age_seconds and X-Board-Data-Age the true age", async () => {
    const paths = [
      { path: "/api/board/status", schema: BoardStatus },
      { path: "/api/board/free", schema: FreeBoard },
      { path: "/api/board/agent?preview=1", schema: FullBoard },
      { path: "/api/board/state", schema: BoardState },
    ];
    type Read = { etag: string | null; asof: string; computedAt: string; rest: string; status?: string; freshness: z.infer<typeof FullBoard>["freshness"] };
    const readAll = () =>
      Promise.all(
        paths.map(async ({ path: p, schema }) => {
          const res = await fetch(`${stack.base}${p}`, { signal: AbortSignal.timeout(HANG_MS) });
          expect(res.status, p).toBe(200);
          const body = schema.parse(await res.json()) as Record<string, unknown> & { asof_daily: string; computed_at: string; freshness: Read["freshness"] };
          const f = body.freshness;
          // The headers carry the block's values (SPEC.md 2.3).
          expect(res.headers.get("x-board-data-age"), p).toBe(String(f.data_age_seconds));
          expect(res.headers.get("x-board-market-open"), p).toBe(String(f.market_open));
          expect(res.headers.get("x-board-next-refresh"), p).toBe(f.next_refresh_at);
          // The status view carries live figures (reads served, so also its ETag): compare the snapshot's fields only.
          // Its status field turns "stale" as the hour goes on: checked on its own below.
          const { reads_served: _r, pending: _p, status: _s, ...stable } = body;
          const etag = p === "/api/board/status" ? null : res.headers.get("etag");
          const read: Read = { etag, asof: body.asof_daily, computedAt: body.computed_at, rest: withoutFreshness(stable), freshness: f };
          if (typeof body.status === "string") read.status = body.status;
          return [p, read] as const;
        }),
      ).then((r) => new Map(r));
    const trueAge = (computed: string) => Math.floor((nowMs - Date.parse(computed)) / 1000);

    const first = await readAll();
    expect(first.get("/api/board/status")!.asof).toBe("2026-11-20");
    expect(first.get("/api/board/free")!.asof).toBe("2026-11-19");
    expect(first.get("/api/board/status")!.freshness.data_age_seconds).toBe(60);

    // An hour with no snapshot, read every 5 minutes of the board's clock.
    const ages: number[] = [];
    for (let step = 1; step <= 12; step++) {
      nowMs += 5 * 60_000;
      const reads = await readAll();
      for (const [p, r] of reads) {
        const was = first.get(p)!;
        // The same snapshot, unchanged: same view bytes (but for freshness), same ETag, same day.
        expect(r.asof, p).toBe(was.asof);
        expect(r.computedAt, p).toBe(was.computedAt);
        expect(r.rest, p).toBe(was.rest);
        expect(r.etag, p).toBe(was.etag);
        // Honest age: now minus the served board's computed_at, to the second.
        expect(r.freshness.data_age_seconds, p).toBe(trueAge(r.computedAt));
        // Market open (13:00-14:00 ET on a Friday); next refresh in the future, within one 5-minute cadence.
        expect(r.freshness.market_open, p).toBe(true);
        const next = Date.parse(r.freshness.next_refresh_at);
        expect(next, p).toBeGreaterThan(nowMs);
        expect(next, p).toBeLessThanOrEqual(nowMs + 5 * 60_000);
      }
      const status = reads.get("/api/board/status")!;
      ages.push(status.freshness.data_age_seconds);
      // Said, not only implied by the age: stale once the scanner has missed STALE_AFTER_SCANS scans in market hours.
      const stale = status.freshness.data_age_seconds > STALE_AFTER_SCANS * 5 * 60;
      expect(status.status, `status at ${status.freshness.data_age_seconds} s`).toBe(stale ? "stale" : "ok");
      // Every current view's poll hint stops promising a 5-minute refresh; the day-old free read's is unchanged.
      for (const p of ["/api/board/status", "/api/board/agent?preview=1", "/api/board/state"])
        if (reads.get(p)!.computedAt === status.computedAt) expect(reads.get(p)!.freshness.poll_hint.includes("has not refreshed"), `${p} at step ${step}`).toBe(stale);
      expect(reads.get("/api/board/free")!.freshness.poll_hint).not.toMatch(/has not refreshed/);
    }
    expect(first.get("/api/board/status")!.status).toBe("ok");
    expect(ages.at(-1)).toBe(3600 + 60);
    const last = await readAll();
    const free = last.get("/api/board/free")!;
    // The free read is one trading day old: Thursday's 13:00 Pacific close, read Friday at 10:56.
    expect(free.freshness.data_age_seconds).toBe(Math.floor((nowMs - Date.parse("2026-11-19T13:00:00-08:00")) / 1000));
    // The board's own gauge tells the same age.
    const gauge = await stack.board!.runtime.metrics.registry.getSingleMetricAsString("board_snapshot_age_seconds");
    expect(gauge).toMatch(/board_snapshot_age_seconds(\{[^}]*\})? 3660\b/);
    expect(await stack.board!.store.count()).toBe(2);
    console.log(
      "[faults-bus] silent hour:",
      JSON.stringify({ status_ages: ages, free_age: free.freshness.data_age_seconds, status_field: last.get("/api/board/status")!.status, poll_hint: last.get("/api/board/status")!.freshness.poll_hint }),
    );
  });
});
