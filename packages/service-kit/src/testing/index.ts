export * from "./infra.js";
export * from "./database.js";
export * from "./inject.js";
export * from "./fixtures.js";
export * from "./stream.js";
export * from "./port.js";
export * from "./live-fixtures.js";
export * from "./spans.js";
