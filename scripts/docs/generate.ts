/**
 * Writes the generated documents: docs/interface.md (proto's routes and error codes),
 * docs/configuration.md (each service's env.ts) and the bus diagram in docs/architecture.md
 * (proto's BUS_GRANTS). Run after changing any of them: npx tsx scripts/docs/generate.ts
 */
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { withBusDiagram } from "./bus-diagram.js";
import { configurationMarkdown } from "./config-reference.js";
import { interfaceMarkdown } from "./interface.js";

const docs = fileURLToPath(new URL("../../docs/", import.meta.url));

writeFileSync(docs + "interface.md", interfaceMarkdown());
writeFileSync(docs + "configuration.md", configurationMarkdown());
writeFileSync(docs + "architecture.md", withBusDiagram(readFileSync(docs + "architecture.md", "utf8")));
console.log("wrote docs/interface.md, docs/configuration.md and the bus diagram of docs/architecture.md");
