// The vector selectors of a PromQL expression: enough of PromQL's lexical grammar to find every
// metric name a query reads and every label matcher it names, so the dashboards' queries can be
// held against what the services export (test/integration/dashboards-metrics.test.ts) without a
// Prometheus. Grafana's variables ($namespace, $__rate_interval, ${datasource}) are taken as
// opaque text inside strings and range brackets.

export interface LabelMatcher {
  label: string;
  op: "=" | "!=" | "=~" | "!~";
  value: string;
}

export interface Selector {
  /** The metric name, as written (a histogram's _bucket, _sum or _count included). */
  metric: string;
  matchers: LabelMatcher[];
}

/** Aggregation and binary-operator keywords: never metric names. */
const KEYWORDS = new Set(["by", "without", "on", "ignoring", "group_left", "group_right", "bool", "and", "or", "unless", "offset", "atan2", "inf", "nan"]);
/** Aggregation operators: `sum by (le) (...)` puts the grouping before the parenthesis. */
const AGGREGATIONS = new Set(["sum", "min", "max", "avg", "group", "stddev", "stdvar", "count", "count_values", "bottomk", "topk", "quantile", "limitk", "limit_ratio"]);
/** Keywords followed by a parenthesised list of label names, not expressions. */
const LABEL_LISTS = new Set(["by", "without", "on", "ignoring", "group_left", "group_right"]);

type Token = { kind: "ident" | "string" | "number" | "punct"; text: string };

function tokenize(expr: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < expr.length) {
    const c = expr[i]!;
    if (/\s/.test(c)) {
      i++;
    } else if (c === "#") {
      while (i < expr.length && expr[i] !== "\n") i++;
    } else if (c === '"' || c === "'" || c === "`") {
      let j = i + 1;
      let value = "";
      while (j < expr.length && expr[j] !== c) {
        if (expr[j] === "\\" && c !== "`") j++;
        value += expr[j] ?? "";
        j++;
      }
      if (j >= expr.length) throw new Error(`unterminated string in ${expr}`);
      tokens.push({ kind: "string", text: value });
      i = j + 1;
    } else if (c === "[") {
      // A range or subquery: its durations (or a Grafana variable) are not selectors.
      const j = expr.indexOf("]", i);
      if (j < 0) throw new Error(`unclosed [ in ${expr}`);
      i = j + 1;
    } else if (/[a-zA-Z_:]/.test(c)) {
      const m = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(expr.slice(i))!;
      tokens.push({ kind: "ident", text: m[0] });
      i += m[0].length;
    } else if (/[0-9.]/.test(c)) {
      const m = /^[0-9.]+(e[+-]?[0-9]+)?/i.exec(expr.slice(i))!;
      tokens.push({ kind: "number", text: m[0] });
      i += m[0].length;
    } else if (c === "$") {
      // A Grafana variable outside a string (e.g. a duration): opaque.
      const m = /^\$\{?[a-zA-Z0-9_:]+\}?/.exec(expr.slice(i));
      i += m ? m[0].length : 1;
    } else {
      const two = expr.slice(i, i + 2);
      const op = ["=~", "!~", "!=", "==", ">=", "<="].includes(two) ? two : c;
      tokens.push({ kind: "punct", text: op });
      i += op.length;
    }
  }
  return tokens;
}

/** Every vector selector of `expr` (a bare metric name is one with no matchers). Throws on what it cannot read. */
export function selectorsOf(expr: string): Selector[] {
  const tokens = tokenize(expr);
  const selectors: Selector[] = [];
  let i = 0;
  const matchersAt = (start: number): { matchers: LabelMatcher[]; next: number } => {
    const matchers: LabelMatcher[] = [];
    let j = start + 1;
    while (tokens[j]?.text !== "}") {
      const label = tokens[j];
      const op = tokens[j + 1];
      const value = tokens[j + 2];
      if (label?.kind !== "ident" || !op || !["=", "!=", "=~", "!~"].includes(op.text) || value?.kind !== "string") {
        throw new Error(`cannot read the label matchers of ${expr}`);
      }
      matchers.push({ label: label.text, op: op.text as LabelMatcher["op"], value: value.text });
      j += 3;
      if (tokens[j]?.text === ",") j++;
    }
    return { matchers, next: j + 1 };
  };
  while (i < tokens.length) {
    const t = tokens[i]!;
    const next = tokens[i + 1];
    if (t.kind === "ident" && LABEL_LISTS.has(t.text) && next?.text === "(") {
      // by (a, b): label names, skipped to the closing parenthesis.
      i += 2;
      while (i < tokens.length && tokens[i]!.text !== ")") i++;
      i++;
    } else if (t.kind === "ident" && (next?.text === "(" || (AGGREGATIONS.has(t.text) && next?.kind === "ident" && LABEL_LISTS.has(next.text)))) {
      i++; // a function or an aggregation
    } else if (t.kind === "ident" && next?.text === "{") {
      const { matchers, next: after } = matchersAt(i + 1);
      selectors.push({ metric: t.text, matchers });
      i = after;
    } else if (t.kind === "punct" && t.text === "{") {
      throw new Error(`a selector without a metric name in ${expr}: name the metric`);
    } else if (t.kind === "ident" && !KEYWORDS.has(t.text.toLowerCase())) {
      selectors.push({ metric: t.text, matchers: [] });
      i++;
    } else {
      i++;
    }
  }
  return selectors;
}
