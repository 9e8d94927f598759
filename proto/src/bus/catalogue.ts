import { boardRead } from "./board.js";
import { SERVICE_NAMES, type BusEndpoint } from "./endpoint.js";
import { pingEndpoint } from "./ping.js";

/** Every endpoint on the bus: the contract test sends each one a request and checks the reply. */
export const BUS_ENDPOINTS: readonly BusEndpoint[] = [...SERVICE_NAMES.map((s) => pingEndpoint(s)), boardRead];
