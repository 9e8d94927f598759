import type { Request, Response } from "express";
import type { ReadDeps } from "../http/read.js";
import { sendError } from "../http/errors.js";

/** POST /mcp: the MCP server. */
export function serveMcp(_deps: ReadDeps, _req: Request, res: Response): Promise<void> | void {
  sendError(res, "not_implemented", "The MCP server is not available yet.");
}
