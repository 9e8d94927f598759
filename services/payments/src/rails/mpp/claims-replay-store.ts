import { Store } from "mppx";

/**
 * mppx's replay store, answered by the claims table: every MPP credential is claimed there
 * under its challenge id (unique, in Postgres, shared by every replica) before anything is
 * served, so a per-process memory of used challenges would add nothing but a leak (mppx's
 * memory store never forgets). This store records nothing and lets the claim decide.
 */
export function claimsReplayStore(): Store.AtomicStore {
  return Store.from({
    get: async () => null,
    put: async () => undefined,
    delete: async () => undefined,
    update: async (_key: string, fn: (current: unknown) => unknown) => fn(null),
    tryClaim: async () => true,
  } as unknown as Store.AtomicStore);
}
