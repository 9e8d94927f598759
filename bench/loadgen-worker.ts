import { parentPort } from "node:worker_threads";
import { Pool } from "undici";
import type { LoadResult, LoadSpec } from "./loadgen.js";

/** The closed-loop HTTP load generator, on undici keep-alive pools (one connection per lane). */
const pools = new Map<string, Pool>();
const MAX_FAILURE_SAMPLES = 5;

function poolFor(origin: string, connections: number): Pool {
  const key = `${origin}#${connections}`;
  let pool = pools.get(key);
  if (!pool) {
    pool = new Pool(origin, { connections, pipelining: 1, keepAliveTimeout: 60_000, headersTimeout: 60_000, bodyTimeout: 60_000 });
    pools.set(key, pool);
  }
  return pool;
}

async function run(spec: LoadSpec): Promise<LoadResult> {
  const pool = poolFor(spec.origin, spec.concurrency);
  const samples: number[] = [];
  const statuses: Record<string, number> = {};
  const errors: Record<string, number> = {};
  const failureSamples: string[] = [];
  let missingHeader = 0;
  let bodyBytes = 0;
  let next = 0;
  const started = performance.now();
  const end = started + spec.durationMs;
  const values = spec.values;

  const lane = async () => {
    for (;;) {
      if (performance.now() >= end) return;
      const i = next++;
      if (values && i >= values.length) return;
      const headers = values && spec.header ? { ...spec.headers, [spec.header]: values[i] as string } : spec.headers;
      const t = performance.now();
      try {
        const res = await pool.request({ path: spec.path, method: spec.method ?? "GET", headers, body: spec.body ?? null });
        const body = Buffer.from(await res.body.arrayBuffer());
        samples.push(performance.now() - t);
        statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
        bodyBytes += body.length;
        const missing = res.statusCode === 200 && spec.requireHeader !== undefined && res.headers[spec.requireHeader] === undefined;
        if (missing) missingHeader++;
        if ((res.statusCode !== 200 || missing) && failureSamples.length < MAX_FAILURE_SAMPLES) {
          failureSamples.push(`${res.statusCode}${missing ? ` without ${spec.requireHeader}` : ""}: ${body.toString("utf8", 0, 300)}`);
        }
      } catch (err) {
        const code = (err as { code?: string }).code ?? (err as Error).name ?? "error";
        errors[code] = (errors[code] ?? 0) + 1;
        if (failureSamples.length < MAX_FAILURE_SAMPLES) failureSamples.push(`${code}: ${(err as Error).message}`);
      }
    }
  };
  await Promise.all(Array.from({ length: spec.concurrency }, lane));
  const elapsedMs = performance.now() - started;
  return { samplesMs: Float64Array.from(samples), elapsedMs, sent: Math.min(next, values?.length ?? next), statuses, errors, missingHeader, bodyBytes, failureSamples };
}

parentPort?.on("message", (msg: { id: number; spec: LoadSpec }) => {
  run(msg.spec).then(
    (result) => parentPort?.postMessage({ id: msg.id, result }, [result.samplesMs.buffer as ArrayBuffer]),
    (err: unknown) => parentPort?.postMessage({ id: msg.id, error: String(err) }),
  );
});
