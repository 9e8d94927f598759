import { baseEnv, parseEnv } from "@board/service-kit";
import type { z } from "zod";

export const MeteringEnv = baseEnv(9104);
export type MeteringEnv = z.infer<typeof MeteringEnv>;

export const loadEnv = (): MeteringEnv => parseEnv(MeteringEnv, process.env, "metering");
