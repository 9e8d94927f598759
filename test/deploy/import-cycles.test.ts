import { describe, expect, it } from "vitest";
import { findCircle, importGraph, sourceFolders } from "./import-graph.js";

// Modules import each other one way: a circle makes what loads first depend on import order
// (a value read before its module ran is undefined), and keeps a piece loaded where it is not used.
describe("the repository's imports", () => {
  const graph = importGraph();

  it("finds every workspace's modules and their relative imports (type-only ones too)", () => {
    expect(sourceFolders()).toEqual(expect.arrayContaining(["proto/src", "packages/client/src", "packages/service-kit/src", "services/gateway/src", "services/payments/src", "scripts", "bench"]));
    expect(graph.size).toBeGreaterThan(500);
    expect(graph.get("services/payments/src/rails/mpp/server-method.ts")).toContain("services/payments/src/rails/eip3009.ts");
    // `import type` is an edge: pages/chart-page-routes.ts takes only the type ReadDeps from reads/read.ts.
    expect(graph.get("services/gateway/src/pages/chart-page-routes.ts")).toContain("services/gateway/src/reads/read.ts");
    expect(graph.get("proto/src/index.ts")).toContain("proto/src/bus/index.ts");
    expect(graph.get("scripts/docs/generate.ts")).toContain("scripts/docs/bus-diagram.ts");
    expect(graph.get("bench/run.ts")?.length).toBeGreaterThan(0);
    // Nothing under test/ is a module of the code.
    expect([...graph.keys()].filter((m) => /(^|\/)test\//.test(m) || m.endsWith(".test.ts"))).toEqual([]);
    expect(findCircle(new Map([["a.ts", ["b.ts"]], ["b.ts", ["c.ts"]], ["c.ts", ["b.ts"]]]))).toEqual(["b.ts", "c.ts", "b.ts"]);
    expect(findCircle(new Map([["a.ts", ["b.ts", "c.ts"]], ["b.ts", ["c.ts"]], ["c.ts", []]]))).toBeNull();
  });

  it("form no circle in proto, packages, services, scripts or bench", () => {
    expect(findCircle(graph)).toBeNull();
  });
});

describe("the gateway's layers", () => {
  const graph = importGraph(["services/gateway/src"]);
  const GATEWAY = "services/gateway/src/";
  const inside = (folder: string) => (m: string) => m.startsWith(`${GATEWAY}${folder}/`);

  it("http/ (errors, headers, bodies, the exchange) imports nothing of the gateway outside http/", () => {
    const http = [...graph].filter(([m]) => inside("http")(m));
    expect(http.length).toBeGreaterThan(10);
    expect(http.flatMap(([m, targets]) => targets.filter((t) => !inside("http")(t)).map((t) => `${m} -> ${t}`))).toEqual([]);
  });

  it("only app.ts, where start.ts's server is built, imports routing/", () => {
    const importers = [...graph].filter(([m, targets]) => !inside("routing")(m) && targets.some(inside("routing"))).map(([m]) => m);
    expect(importers).toEqual([`${GATEWAY}app.ts`]);
  });
});
