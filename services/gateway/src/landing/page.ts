import type { Request, Response } from "express";
import type { ReadDeps } from "../http/read.js";
import { sendError } from "../http/errors.js";

/** GET /: the landing page for people. */
export function serveLandingPage(_deps: ReadDeps, _req: Request, res: Response): Promise<void> | void {
  sendError(res, "not_implemented", "The landing page is not available yet.");
}
