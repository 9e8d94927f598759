export * from "./query.js";
export * from "./catalogue.js";
export * from "./deprecation.js";
export * from "./examples.js";
export * from "./output-examples.js";
