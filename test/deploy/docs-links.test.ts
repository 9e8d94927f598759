import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../", import.meta.url));

/** README.md and every page under docs/. */
function pages(): string[] {
  const found = ["README.md"];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const rel = path.posix.join(dir, entry.name);
      if (entry.isDirectory()) walk(rel);
      else if (entry.name.endsWith(".md")) found.push(rel);
    }
  };
  walk("docs");
  return found;
}

/** The text without fenced code blocks and inline code spans, where a bracket is not a link. */
function prose(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "").replace(/`[^`\n]*`/g, "");
}

/** Every link target of a page: inline links and images, reference definitions, autolinks. */
export function linkTargets(markdown: string): string[] {
  const text = prose(markdown);
  const targets: string[] = [];
  for (const m of text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) targets.push(m[1]!);
  for (const m of text.matchAll(/^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm)) targets.push(m[1]!);
  for (const m of text.matchAll(/<((?:https?|ftp|file|mailto):[^>\s]+)>/g)) targets.push(m[1]!);
  for (const m of text.matchAll(/\bhref="([^"]+)"/g)) targets.push(m[1]!);
  return targets;
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const text = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "");
  for (const m of text.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const slug = m[1]!
      .replace(/<[^>]+>/g, "")
      .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  for (const m of markdown.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(m[1]!);
  return anchors;
}

/** What is wrong with one link of a page, or null. */
function problemOf(page: string, target: string): string | null {
  if (/^https?:\/\//i.test(target)) return null;
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return "leaves the repository (only http(s) URLs may)";
  if (target.startsWith("/")) return "is absolute: write it relative to the page";
  const [file, anchor] = target.split("#", 2) as [string, string | undefined];
  const resolved = file === "" ? path.join(root, page) : path.resolve(path.dirname(path.join(root, page)), decodeURIComponent(file.split("?")[0]!));
  const inside = path.relative(root, resolved);
  if (inside.startsWith("..") || path.isAbsolute(inside)) return "leaves the repository";
  if (!existsSync(resolved)) return "leads to no file";
  if (anchor && resolved.endsWith(".md") && statSync(resolved).isFile() && !anchorsOf(readFileSync(resolved, "utf8")).has(anchor)) {
    return `has no heading #${anchor}`;
  }
  return null;
}

describe("the documents' links", () => {
  it("finds the pages and their links (README.md and docs/)", () => {
    const all = pages();
    expect(all).toContain("docs/buying.md");
    expect(all.length).toBeGreaterThan(10);
    expect(linkTargets("[a](b.md#c) `[x](y)` [r]: d.md <https://e.example>\n```\n[z](w)\n```")).toEqual(["b.md#c", "https://e.example"]);
    expect(anchorsOf("## What `npm start` runs\n## Paying\n## Paying")).toEqual(new Set(["what-npm-start-runs", "paying", "paying-1"]));
  });

  it("every relative link and anchor in README.md and docs/ resolves inside the repository, and only http(s) links leave it", () => {
    const problems: string[] = [];
    for (const page of pages()) {
      for (const target of linkTargets(readFileSync(path.join(root, page), "utf8"))) {
        const problem = problemOf(page, target);
        if (problem) problems.push(`${page}: ${target} ${problem}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it("each reader reaches their guide from README.md in one link, and every page of docs/ within three", () => {
    const linked = (page: string): string[] =>
      linkTargets(readFileSync(path.join(root, page), "utf8"))
        .filter((t) => !/^[a-z]+:/i.test(t) && !t.startsWith("#"))
        .map((t) => path.posix.normalize(path.posix.join(path.posix.dirname(page), t.split("#")[0]!)))
        .flatMap((t) => (t.endsWith("/") || (existsSync(path.join(root, t)) && statSync(path.join(root, t)).isDirectory()) ? readdirSync(path.join(root, t)).filter((f) => f.endsWith(".md")).map((f) => path.posix.join(t, f)) : [t]))
        .filter((t) => t.endsWith(".md") && existsSync(path.join(root, t)));
    const depth = new Map<string, number>([["README.md", 0]]);
    let frontier = ["README.md"];
    for (let d = 1; d <= 3; d++) {
      const next: string[] = [];
      for (const page of frontier)
        for (const t of linked(page))
          if (!depth.has(t)) {
            depth.set(t, d);
            next.push(t);
          }
      frontier = next;
    }
    for (const guide of ["docs/buying.md", "docs/operating.md", "docs/architecture.md", "docs/developing.md"]) expect(depth.get(guide), guide).toBe(1);
    const unreached = pages().filter((p) => !depth.has(p));
    expect(unreached, "pages more than three links from README.md").toEqual([]);
  });

  it("README.md fits on one screen, and every npm script the documents name exists", () => {
    const readme = readFileSync(path.join(root, "README.md"), "utf8");
    expect(readme.split("\n").length).toBeLessThanOrEqual(150);
    for (const command of ["npm ci", "npm start", "npm test"]) expect(readme).toContain(command);
    const scripts = Object.keys((JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts);
    const named = new Set<string>(["start", "test"]);
    for (const page of pages()) for (const m of readFileSync(path.join(root, page), "utf8").matchAll(/npm run (?:--silent )?([a-z][a-z0-9:_-]*)/g)) named.add(m[1]!);
    expect(named.size).toBeGreaterThan(10);
    expect([...named].filter((s) => !scripts.includes(s))).toEqual([]);
  });

  it("nothing committed refers to a folder outside the repository (the interface is described in docs/)", () => {
    const files = execFileSync("git", ["ls-files", "-z", "--", "*.ts", "*.md", "*.json", "*.yaml", "*.yml", "*.mjs", "*.sh"], { cwd: root, encoding: "utf8" })
      .split("\0")
      .filter((f) => f && !f.includes("node_modules/") && existsSync(path.join(root, f)));
    expect(files.length).toBeGreaterThan(100);
    const outside = /\.\.\/shared\b|\/work\/shared\b|shared\/SPEC\.md|shared\/DECISIONS\.md/;
    const offenders = files.filter((f) => outside.test(readFileSync(path.join(root, f), "utf8")));
    expect(offenders).toEqual([]);
  });
});
