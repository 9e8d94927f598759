import type { PublicClient } from "viem";

/** Resolves just after the chain mines its next block (polling every 10 ms); fails after ten intervals without one. */
export async function nextBlock(client: PublicClient, intervalMs: number): Promise<bigint> {
  const from = await client.getBlockNumber({ cacheTime: 0 });
  const deadline = performance.now() + 10 * intervalMs;
  for (;;) {
    const n = await client.getBlockNumber({ cacheTime: 0 });
    if (n > from) return n;
    if (performance.now() > deadline) throw new Error(`no block within ${10 * intervalMs} ms after ${from}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
