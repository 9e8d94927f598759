import type { Request, Response } from "express";
import type { ReadDeps } from "../http/read.js";

export type DiscoveryHandler = (deps: ReadDeps, req: Request, res: Response) => Promise<void> | void;

/** The discovery documents of SPEC.md 4.2, by path (GET /api is the payments catalogue, answered elsewhere). */
export const DISCOVERY_HANDLERS: Record<string, DiscoveryHandler> = {};
