import { boardRead } from "./board.js";
import { SERVICE_NAMES } from "./endpoint.js";
import { pingEndpoint } from "./ping.js";

/** Every endpoint on the bus: the contract test sends each one a request and checks the reply. */
export const BUS_ENDPOINTS = [...SERVICE_NAMES.map((s) => pingEndpoint(s)), boardRead];
