import { BUS_ENDPOINTS, SERVICE_NAMES } from "@board/proto";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { busDiagram, compactNames, DIAGRAM_END, DIAGRAM_START } from "../../scripts/docs/bus-diagram.js";
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

  it("the bus diagram in docs/architecture.md is what proto's BUS_ENDPOINTS and BUS_GRANTS and the stream configs give", () => {
    const page = doc("architecture.md");
    const start = page.indexOf(DIAGRAM_START);
    const end = page.indexOf(DIAGRAM_END);
    expect(start, "bus-diagram markers").toBeGreaterThan(0);
    expect(end).toBeGreaterThan(start);
    expect(page.slice(start + DIAGRAM_START.length + 1, end), STALE).toBe(busDiagram());
  });

  it("the bus diagram names every endpoint of the catalogue in the box of the service that serves it", () => {
    expect(compactNames(["resolve", "sign_in_challenge", "sign_in_verify", "consume", "consume_many", "arrears.list", "arrears.clear"])).toBe(
      "resolve, sign_in_challenge/verify, consume<br/>consume_many, arrears.list/clear",
    );
    const diagram = busDiagram();
    for (const service of SERVICE_NAMES) {
      const box = diagram.split("\n").find((l) => l.startsWith(`  p_${service.replace(/[^A-Za-z0-9]/g, "_")}["`))!;
      expect(box, service).toContain(`serves ${service}.v1.*:`);
      // Every name the box gives, its shared prefixes written out again.
      const names = box
        .slice(box.indexOf(":<br/>") + 6, box.lastIndexOf('"'))
        .split(/<br\/>|, /)
        .flatMap((item) => {
          const [first, ...rest] = item.split("/");
          const prefix = first!.slice(0, Math.max(first!.lastIndexOf("_"), first!.lastIndexOf(".")) + 1);
          return [first!, ...rest.map((r) => prefix + r)];
        });
      const served = BUS_ENDPOINTS.filter((e) => e.service === service).map((e) => e.subject.slice(`${service}.v1.`.length));
      expect(names.sort(), service).toEqual(served.sort());
    }
  });
});
