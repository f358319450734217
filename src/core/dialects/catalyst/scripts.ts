/**
 * Catalyst's code steps as v1 `script` steps. Catalyst splices `{{x}}` values into a script's
 * text; a v1 script's text is never templated, so each value reaches it as an environment
 * variable instead (`"${CATALYST_1}"` where the text had `{{x}}`), and a JavaScript body's
 * `get('x')` reads its variable the same way. The script runs only where an operator allowed
 * scripts; the app refuses it.
 */

/** A value the script needs: the environment variable that carries it, and its v1 template. */
export interface ScriptValue {
  env: string;
  template: string;
}

/** Catalyst's `get('name')` calls in a JavaScript body. */
export function getNames(body: string): string[] {
  const names = new Set<string>();
  for (const m of body.matchAll(/\bget\(\s*(['"])([^'"\n]{1,200})\1\s*\)/g))
    if (m[2]) names.add(m[2]);
  return [...names];
}

/** The environment variable that carries `get(name)`. */
export function getEnvName(name: string): string {
  return `CATALYST_GET_${name.replace(/[^A-Za-z0-9]/g, "_").toUpperCase()}`;
}

/**
 * A Catalyst `script:` body (an async function body with `get`, `fs` and `path`, whose return
 * value is the step's result) as a Node.js program: the result is printed as JSON on stdout, so
 * `stdout.<field>` reads into it; anything the body logs goes to stderr.
 */
export function nodeProgram(body: string): string {
  return [
    "// Catalyst script step: get(), fs and path as Catalyst gives them; the result is printed as JSON.",
    'const fs = require("node:fs");',
    'const path = require("node:path");',
    "const get = (name) => {",
    '  const v = process.env["CATALYST_GET_" + String(name).replace(/[^A-Za-z0-9]/g, "_").toUpperCase()];',
    "  if (v === undefined) return undefined;",
    "  try { return /^\\s*[[{]/.test(v) ? JSON.parse(v) : v; } catch { return v; }",
    "};",
    "console.log = (...args) => console.error(...args);",
    "(async () => {",
    body,
    "})().then(",
    "  (result) => { if (result !== undefined) process.stdout.write(JSON.stringify(result)); },",
    "  (err) => { console.error(err && err.stack ? err.stack : String(err)); process.exit(1); },",
    ");",
  ].join("\n");
}

/**
 * A shell script's `{{x}}` splices replaced by environment variables: `$CATALYST_1` … in the
 * order they appear (one variable per distinct reference).
 */
export function shellText(
  text: string,
  shell: "bash" | "powershell",
): { text: string; refs: { env: string; expr: string }[] } {
  const refs: { env: string; expr: string }[] = [];
  const out = text.replace(/\$?\{\{\s*([^{}]*?)\s*\}\}/g, (_whole, expr: string) => {
    let ref = refs.find((r) => r.expr === expr);
    if (!ref) {
      ref = { env: `CATALYST_${refs.length + 1}`, expr };
      refs.push(ref);
    }
    return shell === "bash" ? `\${${ref.env}}` : `$env:${ref.env}`;
  });
  return { text: out, refs };
}
