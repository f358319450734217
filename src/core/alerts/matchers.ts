import { compileLinear, type LinearRegex } from "../util/regex.js";

/** A label matcher as Alertmanager writes them: `value`, `!=value`, `=~regex`, `!~regex` (regexes match the whole value). */
export interface LabelMatcher {
  label: string;
  op: "=" | "!=" | "=~" | "!~";
  value: string;
  regex?: LinearRegex;
}

export function parseMatcher(label: string, spec: string): LabelMatcher | { error: string } {
  let op: LabelMatcher["op"] = "=";
  let value = spec;
  if (spec.startsWith("=~") || spec.startsWith("!~") || spec.startsWith("!=")) {
    op = spec.slice(0, 2) as LabelMatcher["op"];
    value = spec.slice(2);
  } else if (spec.startsWith("=")) value = spec.slice(1);
  const m: LabelMatcher = { label, op, value };
  if (op === "=~" || op === "!~") {
    const r = compileLinear(`^(?:${value})$`);
    if (!r.ok) return { error: `label '${label}': ${r.error}` };
    m.regex = r.regex;
  }
  return m;
}

export function matches(m: LabelMatcher, labels: Record<string, string>): boolean {
  const v = labels[m.label] ?? "";
  switch (m.op) {
    case "=":
      return v === m.value;
    case "!=":
      return v !== m.value;
    case "=~":
      return m.regex?.test(v) ?? false;
    case "!~":
      return !(m.regex?.test(v) ?? false);
  }
}

/** Parse a map of matchers; invalid ones are reported, never guessed. */
export function parseMatchers(map: Record<string, string> | undefined): {
  matchers: LabelMatcher[];
  errors: string[];
} {
  const matchers: LabelMatcher[] = [];
  const errors: string[] = [];
  for (const [label, spec] of Object.entries(map ?? {})) {
    const m = parseMatcher(label, spec);
    if ("error" in m) errors.push(m.error);
    else matchers.push(m);
  }
  return { matchers, errors };
}
