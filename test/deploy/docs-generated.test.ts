import { SERVICE_NAMES } from "@board/proto";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { busDiagram, DIAGRAM_END, DIAGRAM_START } from "../../scripts/docs/bus-diagram.js";
import { configurationMarkdown, configVariables } from "../../scripts/docs/config-reference.js";
import { interfaceMarkdown } from "../../scripts/docs/interface.js";

const doc = (name: string): string => readFileSync(new URL(`../../docs/${name}`, import.meta.url), "utf8");
const STALE = "stale: run npx tsx scripts/docs/generate.ts and commit the result";

describe("generated documents are up to date", () => {
  it("docs/interface.md is what proto's route catalogue and error codes give", () => {
    expect(doc("interface.md"), STALE).toBe(interfaceMarkdown());
  });

  it("docs/configuration.md is what the services' env.ts schemas give", () => {
    expect(doc("configuration.md"), STALE).toBe(configurationMarkdown());
  });

  it("every variable of every env.ts has a meaning, a row and its readers", () => {
    const page = doc("configuration.md");
    const vars = configVariables();
    expect(vars.length).toBeGreaterThan(50);
    // A new service is read by the generator too (scripts/docs/config-reference.ts SERVICES), or this fails.
    expect(new Set(vars.flatMap((v) => v.services))).toEqual(new Set([...SERVICE_NAMES, "`npm start`"]));
    for (const v of vars) {
      expect(v.meaning, v.name).toBeTruthy();
      expect(page).toContain(`| \`${v.name}\` |`);
    }
    // HEALTH_PORT's default differs per service: the row says each.
    expect(page).toMatch(/\| `HEALTH_PORT` \| all services \| `9101` \(gateway\), `9102` \(board\)/);
    // Identity does not start without its secret; npm start makes one when it is unset.
    expect(page).toMatch(/\| `IDENTITY_SECRET` \| identity, `npm start` \| required \(identity\), unset \(`npm start`\) \|/);
  });

  it("the bus diagram in docs/architecture.md is what proto's BUS_GRANTS give", () => {
    const page = doc("architecture.md");
    const start = page.indexOf(DIAGRAM_START);
    const end = page.indexOf(DIAGRAM_END);
    expect(start, "bus-diagram markers").toBeGreaterThan(0);
    expect(end).toBeGreaterThan(start);
    expect(page.slice(start + DIAGRAM_START.length + 1, end), STALE).toBe(busDiagram());
  });
});
