import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

export const root = fileURLToPath(new URL("../../", import.meta.url));

/**
 * The source folders of the repository's code, as paths from the root: each workspace's src/
 * (proto, packages/*, services/*), and scripts/ and bench/, which keep their modules at the top.
 */
export function sourceFolders(): string[] {
  const under = (dir: string): string[] =>
    readdirSync(path.join(root, dir), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => path.posix.join(dir, e.name, "src"))
      .filter((src) => existsSync(path.join(root, src)));
  return ["proto/src", ...under("packages"), ...under("services"), "scripts", "bench"];
}

const SOURCE = /\.(ts|mts|mjs)$/;
const SKIPPED = new Set(["node_modules", "dist", "test", "results"]);

/** Every module of a folder, its tests, builds and dependencies left out. */
function modulesUnder(dir: string): string[] {
  return readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = path.posix.join(dir, e.name);
    if (e.isDirectory()) return SKIPPED.has(e.name) ? [] : modulesUnder(rel);
    return SOURCE.test(e.name) && !e.name.endsWith(".d.ts") && !e.name.endsWith(".d.mts") && !e.name.endsWith(".test.ts") ? [rel] : [];
  });
}

/** The module a relative specifier names: `./x.js` is x.ts when that is the file (TypeScript's rule), `./x.mjs` x.mts. */
function resolveModule(from: string, specifier: string, modules: ReadonlySet<string>): string | null {
  const target = path.posix.normalize(path.posix.join(path.posix.dirname(from), specifier));
  const candidates = [target, target.replace(/\.js$/, ".ts"), target.replace(/\.mjs$/, ".mts"), `${target}.ts`, `${target}/index.ts`];
  return candidates.find((c) => modules.has(c)) ?? null;
}

/** A module's relative imports and re-exports (type-only ones too), as written. */
export function relativeImports(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest);
  const specifiers: string[] = [];
  for (const s of source.statements) {
    if (!ts.isImportDeclaration(s) && !ts.isExportDeclaration(s)) continue;
    const specifier = s.moduleSpecifier;
    if (specifier && ts.isStringLiteral(specifier) && specifier.text.startsWith(".")) specifiers.push(specifier.text);
  }
  return specifiers;
}

/**
 * Each module of the given folders (paths from the root) and the modules of those folders it
 * imports or re-exports relatively, type-only imports included; imports of packages
 * (`@board/proto`, node's, npm's) and of other files (JSON) are not edges.
 */
export function importGraph(folders: readonly string[] = sourceFolders()): Map<string, string[]> {
  const modules = new Set(folders.flatMap(modulesUnder));
  const graph = new Map<string, string[]>();
  for (const file of [...modules].sort()) {
    const targets = relativeImports(file, readFileSync(path.join(root, file), "utf8"))
      .map((s) => resolveModule(file, s, modules))
      .filter((t): t is string => t !== null);
    graph.set(file, targets);
  }
  return graph;
}

/** One circle (its modules in import order, the first repeated at the end), or null. */
export function findCircle(graph: ReadonlyMap<string, readonly string[]>): string[] | null {
  const done = new Set<string>();
  const trail: string[] = [];
  const visit = (module: string): string[] | null => {
    const at = trail.indexOf(module);
    if (at >= 0) return [...trail.slice(at), module];
    if (done.has(module)) return null;
    trail.push(module);
    for (const target of graph.get(module) ?? []) {
      const circle = visit(target);
      if (circle) return circle;
    }
    trail.pop();
    done.add(module);
    return null;
  };
  for (const module of graph.keys()) {
    const circle = visit(module);
    if (circle) return circle;
  }
  return null;
}
