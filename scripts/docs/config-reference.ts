import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { z } from "zod";
import { BoardEnv } from "../../services/board/src/env.js";
import { GatewayEnv } from "../../services/gateway/src/env.js";
import { IdentityEnv } from "../../services/identity/src/env.js";
import { MeteringEnv } from "../../services/metering/src/env.js";
import { PaymentsEnv } from "../../services/payments/src/env.js";
import { ScannerEnv } from "../../services/scanner-ingest/src/env.js";
import { LauncherEnv } from "../launcher/env.js";

/** Each service's own env.ts schema, and the files its variables are declared in (its own and the shared base). */
const SERVICES: readonly { name: string; schema: z.ZodObject; source: string }[] = [
  { name: "gateway", schema: GatewayEnv, source: "services/gateway/src/env.ts" },
  { name: "board", schema: BoardEnv, source: "services/board/src/env.ts" },
  { name: "identity", schema: IdentityEnv, source: "services/identity/src/env.ts" },
  { name: "metering", schema: MeteringEnv, source: "services/metering/src/env.ts" },
  { name: "payments", schema: PaymentsEnv, source: "services/payments/src/env.ts" },
  { name: "scanner-ingest", schema: ScannerEnv, source: "services/scanner-ingest/src/env.ts" },
];
const BASE_SOURCE = "packages/service-kit/src/env.ts";
/** `npm start`: what it reads itself (it passes everything else through to the services). */
const LAUNCHER = { name: "`npm start`", schema: LauncherEnv as z.ZodObject, source: "scripts/launcher/env.ts" };

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

interface Def {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  out?: z.ZodType;
  defaultValue?: unknown;
  entries?: Record<string, string>;
}
const defOf = (t: z.ZodType): Def => (t as unknown as { _zod: { def: Def } })._zod.def;

/** What a field of an env schema says about itself: its default, whether it must be given, its allowed values. */
function fieldFacts(field: z.ZodType): { default?: string; required: boolean; values?: string[] } {
  let t: z.ZodType | undefined = field;
  let required = true;
  let dflt: string | undefined;
  let values: string[] | undefined;
  while (t) {
    const d = defOf(t);
    if (d.type === "default") {
      const v = d.defaultValue;
      // A default given after its transform (an ETH amount held as wei) is shown as parsed.
      dflt = typeof v === "bigint" ? `${v.toString()} (as parsed)` : String(v);
      required = false;
      t = d.innerType;
    } else if (d.type === "optional") {
      required = false;
      t = d.innerType;
    } else if (d.type === "pipe") {
      t = d.in && defOf(d.in).type !== "transform" ? d.in : d.out;
    } else if (d.type === "enum") {
      values = Object.values(d.entries ?? {});
      t = undefined;
    } else {
      t = undefined;
    }
  }
  // A field that accepts nothing given is optional whatever its wrappers (preprocess, transform).
  if (required && field.safeParse(undefined).success) required = false;
  return { default: dflt, required, values };
}

const oneLine = (comment: string): string =>
  comment
    .split("\n")
    .map((l) => l.replace(/^\s*\*\s?/, "").trim())
    .join(" ")
    .replace(/\s+/g, " ")
    .trim();

/**
 * The JSDoc comment above `NAME:` in a source file, as one line: the comment right above it, or
 * the one above the run of properties it belongs to (`SETTLEMENT_BATCH_MAX` and
 * `SETTLEMENT_BATCH_WINDOW_MS` share one), up to the next comment.
 */
function docComment(source: string, name: string): string | undefined {
  const property = new RegExp(`^\\s*${name}\\s*:`, "m");
  for (const m of source.matchAll(/\/\*\*((?:(?!\*\/)[\s\S])*)\*\/[ \t]*\n((?:[ \t]*(?!\/\*\*|\/\/)[A-Z][A-Z0-9_]*\s*:.*\n)+)/g)) {
    if (property.test(m[2]!)) return oneLine(m[1]!);
  }
  return undefined;
}

export interface ConfigVariable {
  name: string;
  /** The services that read it, and `npm start` last when it does. */
  services: string[];
  /** Per reader (HEALTH_PORT's differs per service, NATS_URL's for the launcher). */
  defaults: Map<string, string | undefined>;
  required: boolean;
  values?: string[];
  meaning: string | undefined;
}

/** Every variable any service's env.ts reads, with who reads it, its default and its meaning. */
export function configVariables(): ConfigVariable[] {
  const sources = new Map<string, string>();
  const read = (path: string): string => {
    if (!sources.has(path)) sources.set(path, readFileSync(ROOT + path, "utf8"));
    return sources.get(path)!;
  };
  const vars = new Map<string, ConfigVariable>();
  for (const s of SERVICES) {
    for (const [name, field] of Object.entries(s.schema.shape) as [string, z.ZodType][]) {
      const facts = fieldFacts(field);
      const meaning = field.description ?? docComment(read(s.source), name) ?? docComment(read(BASE_SOURCE), name);
      const v: ConfigVariable = vars.get(name) ?? { name, services: [], defaults: new Map(), required: facts.required, values: facts.values, meaning };
      v.services.push(s.name);
      v.defaults.set(s.name, facts.default);
      v.required &&= facts.required;
      v.meaning ??= meaning;
      vars.set(name, v);
    }
  }
  // The launcher's own reading of a variable follows the services' meaning, when it says more.
  for (const [name, field] of Object.entries(LAUNCHER.schema.shape) as [string, z.ZodType][]) {
    const facts = fieldFacts(field);
    const own = field.description ?? docComment(read(LAUNCHER.source), name);
    const v: ConfigVariable = vars.get(name) ?? { name, services: [], defaults: new Map(), required: false, values: facts.values, meaning: undefined };
    v.services.push(LAUNCHER.name);
    v.defaults.set(LAUNCHER.name, facts.default);
    if (own && own !== v.meaning) v.meaning = v.meaning ? `${v.meaning} ${LAUNCHER.name}: ${own}` : own;
    vars.set(name, v);
  }
  return [...vars.values()];
}

const code = (s: string): string => "`" + s + "`";
/** Table text: a pipe would end the cell, and `<service>` would read as an HTML tag. */
const prose = (s: string): string => s.replace(/\|/g, "\\|").replace(/</g, "&lt;");

function defaultCell(v: ConfigVariable): string {
  // Required binds a service; the launcher only passes a variable on (or makes one, as IDENTITY_SECRET).
  const shown = (d: string | undefined, reader: string): string =>
    d === undefined ? (v.required && reader !== LAUNCHER.name ? "required" : "unset") : d === "" ? "empty" : code(d);
  const byValue = new Map<string, string[]>();
  for (const [reader, d] of v.defaults) byValue.set(shown(d, reader), [...(byValue.get(shown(d, reader)) ?? []), reader]);
  if (byValue.size === 1) return [...byValue.keys()][0]!;
  return [...byValue].map(([value, readers]) => `${value} (${readers.join(", ")})`).join(", ");
}

/** docs/configuration.md as the script writes it. */
export function configurationMarkdown(): string {
  const vars = configVariables();
  const missing = vars.filter((v) => !v.meaning).map((v) => v.name);
  if (missing.length > 0) throw new Error(`no description in env.ts for: ${missing.join(", ")}`);
  const all = SERVICES.length;
  const serviceCount = (v: ConfigVariable): number => v.services.filter((s) => s !== LAUNCHER.name).length;
  const order = (v: ConfigVariable): number => (serviceCount(v) === all ? 0 : serviceCount(v) === 0 ? 2 : 1);
  const sorted = [...vars].sort((a, b) => order(a) - order(b) || a.services[0]!.localeCompare(b.services[0]!) || 0);
  const lines = [
    "# Configuration reference",
    "",
    "<!-- Generated by scripts/docs/config-reference.ts from each service's src/env.ts: do not edit by hand. -->",
    "<!-- Regenerate: npx tsx scripts/docs/generate.ts (test/deploy/docs-generated.test.ts fails when this file is stale). -->",
    "",
    "Every service parses its environment once, with zod, in its own `src/env.ts`, and refuses to start on a bad",
    "value with a message naming the variable (never its value). This table is generated from those schemas: the",
    "variable, the services that read it, its default (unset: the feature it configures is off; required: the",
    "service does not start without it) and what it means, from the schema's own documentation; `npm start`",
    "(scripts/launcher/env.ts) reads a few itself and passes every other one through to the services. What the",
    "operator's command-line tools read, and notes on how variables work together, are in",
    "[operating.md](operating.md#configuration).",
    "",
    `${vars.length} variables across ${all} services and \`npm start\`.`,
    "",
    "| variable | read by | default | meaning |",
    "|---|---|---|---|",
  ];
  for (const v of sorted) {
    const readers = serviceCount(v) === all ? ["all services", ...v.services.slice(all)].join(", ") : v.services.join(", ");
    const values = v.values ? ` One of ${v.values.map(code).join(", ")}.` : "";
    lines.push(`| ${code(v.name)} | ${readers} | ${defaultCell(v).replace(/\|/g, "\\|")} | ${prose(v.meaning! + values)} |`);
  }
  return lines.join("\n") + "\n";
}
