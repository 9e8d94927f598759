export * from "./endpoint.js";
export * from "./ping.js";
export * from "./board.js";
export * from "./catalogue.js";
export * from "./payments.js";
export * from "./identity.js";
export * from "./metering.js";
export * from "./view-body.js";
