import type { Worker } from "node:worker_threads";
import { tsWorker } from "./ts-worker.js";

/** One timed stretch of closed-loop load: `concurrency` lanes, each sends its next request when the previous answered. */
export interface LoadSpec {
  origin: string;
  path: string;
  concurrency: number;
  /** No request starts after this long. */
  durationMs: number;
  /** When set, request i carries `values[i]` in `header`, and the run also ends when they run out (each used once). */
  header?: string;
  values?: string[];
  /** A 200 without this response header counts as a failure. */
  requireHeader?: string;
  /** Every request's method, body and fixed headers (default: GET, none). */
  method?: "GET" | "POST";
  body?: string;
  headers?: Record<string, string>;
}

export interface LoadResult {
  /** Latency of every answered request, ms, in completion order. */
  samplesMs: Float64Array;
  elapsedMs: number;
  sent: number;
  /** Answers by HTTP status. */
  statuses: Record<string, number>;
  /** Requests that got no HTTP answer, by error code. */
  errors: Record<string, number>;
  /** 200s lacking `requireHeader`. */
  missingHeader: number;
  bodyBytes: number;
  /** The first few failures, status and body start, to say why. */
  failureSamples: string[];
}

export const okCount = (r: LoadResult): number => (r.statuses["200"] ?? 0) - r.missingHeader;
export const failureCount = (r: LoadResult): number => r.sent - okCount(r);

type Reply = { id: number; result: LoadResult } | { id: number; error: string };

/**
 * The load generator's own thread: it never shares an event loop with the servers under test
 * (which run in this process). Its connection pools survive between runs, so a warm-up run
 * leaves the measured run warm connections.
 */
export class LoadWorker {
  private readonly worker: Worker;
  private nextId = 0;
  private readonly pending = new Map<number, { resolve: (r: LoadResult) => void; reject: (e: Error) => void }>();

  constructor() {
    this.worker = tsWorker(new URL("./loadgen-worker.ts", import.meta.url));
    this.worker.on("message", (reply: Reply) => {
      const p = this.pending.get(reply.id);
      this.pending.delete(reply.id);
      if (!p) return;
      if ("error" in reply) p.reject(new Error(reply.error));
      else p.resolve(reply.result);
    });
    this.worker.on("error", (err) => {
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
    });
  }

  run(spec: LoadSpec): Promise<LoadResult> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, spec });
    });
  }

  async close(): Promise<void> {
    await this.worker.terminate();
  }
}
