import { idOf } from "./manifests.js";
import { arr, isObj, type Obj } from "./tools.js";

/** The Prometheus Operator's PrometheusRule (a CRD, no kubernetes-models class): its groups and rules, checked by hand. */
export function checkPrometheusRule(o: Obj): string[] {
  const at = idOf(o);
  const spec = isObj(o.spec) ? o.spec : {};
  const groups = arr(spec.groups, "spec.groups");
  const problems: string[] = [];
  if (groups.length === 0) problems.push(`${at}: spec.groups is empty`);
  const names = new Set<string>();
  for (const g of groups) {
    if (!isObj(g) || typeof g.name !== "string" || g.name === "") {
      problems.push(`${at}: a group without a name`);
      continue;
    }
    if (names.has(g.name)) problems.push(`${at}: group ${g.name} twice`);
    names.add(g.name);
    for (const r of arr(g.rules, `${g.name} rules`)) {
      const rule = isObj(r) ? r : {};
      const kind = [typeof rule.record === "string", typeof rule.alert === "string"].filter(Boolean).length;
      if (kind !== 1) problems.push(`${at}: a rule of ${g.name} is not exactly one of record or alert`);
      if (typeof rule.expr !== "string" || rule.expr.trim() === "") problems.push(`${at}: a rule of ${g.name} has no expr`);
      if (rule.for !== undefined && !/^(\d+(ms|s|m|h|d|w|y))+$/.test(String(rule.for))) problems.push(`${at}: ${String(rule.alert)} for: ${String(rule.for)}`);
    }
  }
  return problems;
}
