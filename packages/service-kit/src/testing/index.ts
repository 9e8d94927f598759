export * from "./infra.js";
export * from "./database.js";
export * from "./inject.js";
