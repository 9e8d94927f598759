import { baseEnv, parseEnv } from "@board/service-kit";
import type { z } from "zod";

export const IdentityEnv = baseEnv(9103);
export type IdentityEnv = z.infer<typeof IdentityEnv>;

export const loadEnv = (): IdentityEnv => parseEnv(IdentityEnv, process.env, "identity");
