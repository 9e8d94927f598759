/**
 * Main-thread CPU time per service, from a V8 CPU profile. Every server under test shares the
 * main thread, so process CPU cannot be split by service; the profile can: each sample is
 * charged to the service whose code is nearest the top of its stack (a library call made by
 * board code is board's), to the shared kit when only its frames are there, and otherwise to
 * "node" (the HTTP parser, sockets, timers, GC: work no frame of ours asked for directly).
 */

/** The parts of a V8 profile (Profiler.stop) this reads. */
export interface CpuProfile {
  nodes: { id: number; callFrame: { url: string; functionName: string }; children?: number[] }[];
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

const SERVICE_URL = /\/services\/([a-z-]+)\/src\//;
const KIT_URL = /\/packages\/service-kit\/src\/|\/proto\/src\//;
const IDLE = new Set(["(idle)"]);

/** Milliseconds of CPU per owner: services by folder name, "service-kit" (with proto), "node"; idle excluded. */
export function cpuByService(profile: CpuProfile): Record<string, number> {
  const parent = new Map<number, number>();
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const owner = new Map<number, string | null>();
  const ownerOf = (id: number): string | null => {
    const known = owner.get(id);
    if (known !== undefined) return known;
    const node = byId.get(id);
    if (!node || IDLE.has(node.callFrame.functionName)) {
      owner.set(id, null);
      return null;
    }
    // Nearest frame of ours from the leaf up: a service's own code names the service.
    let found = "node";
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const url = byId.get(cur)?.callFrame.url ?? "";
      const service = SERVICE_URL.exec(url)?.[1];
      if (service) {
        found = service;
        break;
      }
      if (found === "node" && KIT_URL.test(url)) found = "service-kit";
    }
    owner.set(id, found);
    return found;
  };
  const out: Record<string, number> = {};
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  // timeDeltas[i] is the time before sample i; the sample i's duration is the next delta.
  for (let i = 0; i < samples.length; i++) {
    const who = ownerOf(samples[i]!);
    if (!who) continue;
    const us = deltas[i + 1] ?? 0;
    out[who] = (out[who] ?? 0) + us / 1000;
  }
  return out;
}
