import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

// The service's own modules import each other one way: a circle makes what loads first depend on
// import order, and keeps a piece (mppx, for one) loaded where it is not used.
const SRC = resolve(dirname(fileURLToPath(import.meta.url)), "../src");

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : []));
}

/** Each module's relative imports and re-exports (type-only ones too), as paths under src/. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sources(SRC)) {
    const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest);
    const targets: string[] = [];
    for (const s of source.statements) {
      if (!ts.isImportDeclaration(s) && !ts.isExportDeclaration(s)) continue;
      const specifier = s.moduleSpecifier;
      if (specifier && ts.isStringLiteral(specifier) && specifier.text.startsWith("."))
        targets.push(relative(SRC, resolve(dirname(file), specifier.text)).replace(/\.js$/, ".ts"));
    }
    graph.set(relative(SRC, file), targets);
  }
  return graph;
}

/** One circle (its modules in import order, the first repeated at the end), or null. */
function findCircle(graph: Map<string, string[]>): string[] | null {
  const done = new Set<string>();
  const path: string[] = [];
  const visit = (module: string): string[] | null => {
    const at = path.indexOf(module);
    if (at >= 0) return [...path.slice(at), module];
    if (done.has(module)) return null;
    path.push(module);
    for (const target of graph.get(module) ?? []) {
      const circle = visit(target);
      if (circle) return circle;
    }
    path.pop();
    done.add(module);
    return null;
  };
  for (const module of graph.keys()) {
    const circle = visit(module);
    if (circle) return circle;
  }
  return null;
}

describe("payments' imports", () => {
  const graph = importGraph();

  it("finds the modules and their imports", () => {
    expect(graph.get("rails/mpp/server-method.ts")).toContain("rails/eip3009.ts");
    expect(findCircle(new Map([["a.ts", ["b.ts"]], ["b.ts", ["a.ts"]]]))).toEqual(["a.ts", "b.ts", "a.ts"]);
  });

  it("form no circle", () => {
    expect(findCircle(graph)).toBeNull();
  });

  it("reach the MPP rail from rails/ only where the rails are wired", () => {
    // rails/mpp/ takes the shared EIP-3009 pieces from rails/; the x402 side needs nothing of it.
    const intoMpp = [...graph].filter(([module, targets]) => /^rails\/[^/]+$/.test(module) && targets.some((t) => t.startsWith("rails/mpp/")));
    expect(intoMpp.map(([module]) => module)).toEqual(["rails/configured.ts"]);
  });
});
