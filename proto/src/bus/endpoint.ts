import type { z } from "zod";

export const SERVICE_NAMES = ["gateway", "identity", "metering", "payments", "board", "scanner-ingest"] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

/**
 * One named endpoint of a service on the bus. `body: "bytes"` replies carry their metadata
 * (validated by `reply`) in the BUS_META_HEADER and the payload as raw bytes, so a
 * pre-rendered view crosses the bus without a JSON re-encode.
 */
export interface BusEndpoint<Req extends z.ZodType = z.ZodType, Rep extends z.ZodType = z.ZodType> {
  readonly service: ServiceName;
  readonly group: string;
  readonly name: string;
  readonly subject: string;
  readonly request: Req;
  readonly reply: Rep;
  readonly body: "json" | "bytes";
}

export const BUS_META_HEADER = "Board-Meta";

export function busEndpoint<Req extends z.ZodType, Rep extends z.ZodType>(
  service: ServiceName,
  name: string,
  request: Req,
  reply: Rep,
  body: "json" | "bytes" = "json",
): BusEndpoint<Req, Rep> {
  const group = `${service}.v1`;
  return { service, group, name, subject: `${group}.${name}`, request, reply, body };
}
