export * from "./query.js";
export * from "./catalogue.js";
