import { baseEnv, parseEnv } from "@board/service-kit";
import type { z } from "zod";

export const PaymentsEnv = baseEnv(9105);
export type PaymentsEnv = z.infer<typeof PaymentsEnv>;

export const loadEnv = (): PaymentsEnv => parseEnv(PaymentsEnv, process.env, "payments");
