import { Worker } from "node:worker_threads";

/** A worker thread running a TypeScript module: Node 20 will not load a .ts entry itself, so tsx is registered inside it first. */
export function tsWorker(entry: URL, workerData?: unknown): Worker {
  const tsx = import.meta.resolve("tsx/esm/api");
  const code = `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(entry.href)}); });`;
  return new Worker(code, { eval: true, workerData });
}
