import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { root } from "../deploy/tools.js";
import { startEngine } from "./engine.js";
import { buildServiceImages, ensureBaseImages } from "./images.js";

export const IMAGES_REPORT = path.join(root, ".data", "containers", "images.json");

/** Once per run, before any test file: the base images when missing, then the six service images (their figures to IMAGES_REPORT). */
export default async function setup() {
  const engine = await startEngine(path.join(root, ".data", "containers", "engine-build"));
  try {
    await ensureBaseImages(engine);
    const figures = await buildServiceImages(engine);
    mkdirSync(path.dirname(IMAGES_REPORT), { recursive: true });
    writeFileSync(IMAGES_REPORT, `${JSON.stringify(figures, null, 2)}\n`);
  } finally {
    await engine.stop();
  }
}
