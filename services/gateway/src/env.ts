import { baseEnv, parseEnv } from "@board/service-kit";
import { z } from "zod";

export const GatewayEnv = baseEnv(9101).extend({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().min(1).default("0.0.0.0"),
  /** How long a board read may take on the bus before the client gets a 504. */
  BUS_TIMEOUT_MS: z.coerce.number().int().min(50).max(30000).default(3000),
  /** Express "trust proxy": the hops in front of the gateway (0 when clients connect directly). */
  TRUST_PROXY_HOPS: z.coerce.number().int().min(0).max(10).default(0),
  /** Where clients reach the service: the OAuth issuer and resource, and the 401 challenges' metadata links. */
  PUBLIC_BASE_URL: z.url({ protocol: /^https?$/, error: "must be an http(s) URL" }).default("http://localhost:8080"),
});
export type GatewayEnv = z.infer<typeof GatewayEnv>;

export const loadEnv = (): GatewayEnv => parseEnv(GatewayEnv, process.env, "gateway");
