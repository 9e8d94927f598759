export * from "./records/index.js";
export * from "./bus/index.js";
export * from "./errors.js";
export * from "./routes/index.js";
export * from "./proof.js";
export * from "./mcp/tools.js";
export * from "./mcp/resources.js";
export * from "./mpp-usdc.js";
