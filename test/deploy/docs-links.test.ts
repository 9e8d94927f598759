import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../", import.meta.url));

/** The repository's own pages beside README.md and docs/ that a reader is sent to. */
const OTHER_PAGES = ["bench/README.md", "packages/client/README.md", "SECURITY.md", "CHANGELOG.md"];

/** Every committed markdown file (outside node_modules). */
function committedMarkdown(): string[] {
  return execFileSync("git", ["ls-files", "-z", "--", "*.md"], { cwd: root, encoding: "utf8" })
    .split("\0")
    .filter((f) => f && !f.split("/").includes("node_modules") && existsSync(path.join(root, f)));
}

/** README.md and every page under docs/. */
function guidePages(): string[] {
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

/** The committed markdown files a page links to, as paths from the root. */
function linkedMarkdown(page: string, committed: ReadonlySet<string>): string[] {
  return linkTargets(readFileSync(path.join(root, page), "utf8"))
    .filter((t) => !/^[a-z][a-z0-9+.-]*:/i.test(t) && !t.startsWith("#") && !t.startsWith("/"))
    .map((t) => path.posix.normalize(path.posix.join(path.posix.dirname(page), decodeURIComponent(t.split("#")[0]!.split("?")[0]!))))
    .filter((t) => committed.has(t));
}

/**
 * The pages whose links are checked: README.md, docs/, the other pages a reader is sent to, and
 * every committed markdown file linked from any of them (followed to the end).
 */
function pages(): string[] {
  const committed = new Set(committedMarkdown());
  const found = new Set([...guidePages(), ...OTHER_PAGES]);
  let frontier = [...found];
  while (frontier.length > 0) {
    const next: string[] = [];
    for (const page of frontier)
      for (const t of linkedMarkdown(page, committed))
        if (!found.has(t)) {
          found.add(t);
          next.push(t);
        }
    frontier = next;
  }
  return [...found];
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
  it("finds the pages and their links (README.md, docs/, the pages they send a reader to)", () => {
    const all = pages();
    expect(all).toContain("docs/buying.md");
    for (const page of OTHER_PAGES) expect(all).toContain(page);
    // Linked from docs/decisions.md, so checked too.
    expect(all).toContain("services/scanner-ingest/data/universe/PROVENANCE.md");
    expect(all.length).toBeGreaterThan(10);
    expect(linkTargets("[a](b.md#c) `[x](y)` [r]: d.md <https://e.example>\n```\n[z](w)\n```")).toEqual(["b.md#c", "https://e.example"]);
    expect(anchorsOf("## What `npm start` runs\n## Paying\n## Paying")).toEqual(new Set(["what-npm-start-runs", "paying", "paying-1"]));
  });

  it("every relative link and anchor of those pages resolves inside the repository, and only http(s) links leave it", () => {
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
    const files = committedFiles();
    expect(files.length).toBeGreaterThan(100);
    const outside = /\.\.\/shared\b|\/work\/shared\b|shared\/SPEC\.md|shared\/DECISIONS\.md/;
    const offenders = files.filter((f) => outside.test(readFileSync(path.join(root, f), "utf8")));
    expect(offenders).toEqual([]);
  });

  it("no committed markdown file links to or names the documents the service was first specified in, but to say what code comments mean by them", () => {
    expect(mentionsIn('see SPEC.md 4 and [d](DECISIONS.md), SCORING.md\'s rules; comments that cite "DESIGN.md" name the notes', true)).toEqual(["SPEC.md", "DECISIONS.md", "SCORING.md"]);
    const problems: string[] = [];
    for (const file of committedMarkdown()) {
      const text = readFileSync(path.join(root, file), "utf8");
      for (const name of mentionsIn(text, EXPLAINING_PAGES.includes(file))) problems.push(`${file}: ${name}`);
    }
    expect(problems, "say it in docs/ (interface.md, decisions.md, methodology.md) and link there").toEqual([]);
  });

  it("code comments name those documents only where docs/interface.md or docs/decisions.md says what they are, and nothing shipped names them", () => {
    const explained = new Set(EXPLAINING_PAGES.flatMap((p) => [...readFileSync(path.join(root, p), "utf8").matchAll(EXPLAINED)].map((m) => `${m[1]}.md`)));
    expect([...explained].sort()).toEqual(["DECISIONS.md", "DESIGN.md", "SCORING.md", "SPEC.md"]);
    const unexplained: string[] = [];
    const shipped: string[] = [];
    for (const file of committedFiles().filter((f) => !f.endsWith(".md"))) {
      const text = readFileSync(path.join(root, file), "utf8");
      if (!OUTSIDE_DOCUMENT.test(text)) continue;
      if (!/\.(ts|mts|mjs|js)$/.test(file)) {
        shipped.push(`${file}: ${mentionsIn(text).join(", ")}`);
        continue;
      }
      for (const name of mentionsIn(text)) if (!explained.has(name)) unexplained.push(`${file}: ${name}`);
      // What a file outside the tests says in a string is served or printed to someone: a page,
      // an OpenAPI description, an error message. A test's names are for its readers, as comments are.
      if (!isTestFile(file))
        for (const literal of stringLiterals(file, text)) for (const name of mentionsIn(literal, true)) shipped.push(`${file}: ${name} in "${literal.slice(0, 80)}"`);
    }
    expect(unexplained, "say in docs/decisions.md what the comment cites").toEqual([]);
    expect(shipped, "say it in the project's own words (or point at docs/)").toEqual([]);
  });
});

/** Every committed file the reference checks read (outside node_modules). */
function committedFiles(): string[] {
  return execFileSync("git", ["ls-files", "-z", "--", "*.ts", "*.mts", "*.md", "*.json", "*.yaml", "*.yml", "*.mjs", "*.sh"], { cwd: root, encoding: "utf8" })
    .split("\0")
    .filter((f) => f && !f.split("/").includes("node_modules") && existsSync(path.join(root, f)));
}

/** The documents the service was first specified and designed in, which are not in the repository. */
const OUTSIDE_DOCUMENT = /\b(SPEC|DECISIONS|SCORING|DESIGN)\.md\b/;
/** The pages that say what a code comment citing one of them means. */
const EXPLAINING_PAGES = ["docs/interface.md", "docs/decisions.md"];
/** That saying: comments that cite "X.md" name ... (also as the string the interface page is generated from). */
const EXPLAINED = /\bcite\s+"(SPEC|DECISIONS|SCORING|DESIGN)\.md"\s+names?\b/g;
const EXPLAINING_STRING = /"(SPEC|DECISIONS|SCORING|DESIGN)\.md"\s+names?\b/g;

/** The outside documents a text names, in order, once each; `explaining` leaves out the sentence that says what they are. */
function mentionsIn(text: string, explaining = false): string[] {
  const kept = explaining ? text.replace(EXPLAINED, "").replace(EXPLAINING_STRING, "") : text;
  return [...new Set([...kept.matchAll(new RegExp(OUTSIDE_DOCUMENT.source, "g"))].map((m) => `${m[1]}.md`))];
}

const isTestFile = (file: string): boolean => /(^|\/)test\//.test(file) || /\.test\.ts$/.test(file);

/** The text of every string literal and template piece of a source file (comments are not strings). */
function stringLiterals(file: string, text: string): string[] {
  const found: string[] = [];
  const walk = (node: ts.Node): void => {
    if (ts.isStringLiteralLike(node) || ts.isTemplateLiteralToken(node)) found.push(node.text);
    ts.forEachChild(node, walk);
  };
  walk(ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false));
  return found;
}
