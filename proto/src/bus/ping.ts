import { z } from "zod";
import { IsoDateTime } from "../records/common.js";
import { busEndpoint, SERVICE_NAMES, type ServiceName } from "./endpoint.js";

export const PingRequest = z.object({});
export type PingRequest = z.infer<typeof PingRequest>;

export const PingReply = z.object({
  service: z.enum(SERVICE_NAMES),
  version: z.string(),
  instance: z.string(),
  started_at: IsoDateTime,
  uptime_seconds: z.number().min(0),
});
export type PingReply = z.infer<typeof PingReply>;

/** Every service answers `<service>.v1.ping` (beside the services API's own $SRV.PING). */
export const pingEndpoint = (service: ServiceName) => busEndpoint(service, "ping", PingRequest, PingReply);
