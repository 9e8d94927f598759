import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { METHODOLOGY_DOC_PATH, methodologyDocument } from "./methodology.js";

// Regenerates docs/methodology.md from methodology.ts (run from anywhere: the path is the repository's).
const target = fileURLToPath(new URL(`../../../../${METHODOLOGY_DOC_PATH}`, import.meta.url));
writeFileSync(target, methodologyDocument());
console.log(`wrote ${target}`);
