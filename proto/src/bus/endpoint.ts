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

/**
 * `<service>.v1.<name>`. A dotted name nests: `arrears.list` is the endpoint `list` of the group
 * `<service>.v1.arrears` (the NATS services API takes no dot in an endpoint's name), subject
 * `<service>.v1.arrears.list`, still under the `<service>.v1.>` the service serves.
 */
export function busEndpoint<Req extends z.ZodType, Rep extends z.ZodType>(
  service: ServiceName,
  name: string,
  request: Req,
  reply: Rep,
  body: "json" | "bytes" = "json",
): BusEndpoint<Req, Rep> {
  const dot = name.lastIndexOf(".");
  const group = dot < 0 ? `${service}.v1` : `${service}.v1.${name.slice(0, dot)}`;
  const leaf = name.slice(dot + 1);
  return { service, group, name: leaf, subject: `${group}.${leaf}`, request, reply, body };
}
