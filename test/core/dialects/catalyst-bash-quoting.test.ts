import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { bashSplices, shellText } from "../../../src/core/dialects/catalyst/scripts.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** The converted script run by bash with the values as its environment (values by expression). */
function run(script: string, values: Record<string, string>) {
  const { text, refs } = shellText(script, "bash");
  const env: Record<string, string> = { PATH: process.env.PATH ?? "/usr/bin:/bin" };
  for (const r of refs) env[r.env] = values[r.expr] ?? "";
  const res = spawnSync("bash", ["-c", text], { env, encoding: "utf8", timeout: 10_000 });
  return { code: res.status, out: res.stdout, err: res.stderr, text };
}

function pwnedPath(): string {
  const dir = mkdtempSync(join(tmpdir(), "pb-quote-"));
  dirs.push(dir);
  return join(dir, "pwned");
}

describe("Catalyst values in a bash script", () => {
  it("reads each splice's context: unquoted, quoted, arithmetic, subscripts, offsets, here-documents", () => {
    const contexts = (t: string) => bashSplices(t).map((s) => [s.context, s.numeric]);
    expect(contexts("echo {{a}} \"x {{a}}\" 'y {{a}}' $'z {{a}}'")).toEqual([
      ["plain", false],
      ["double", false],
      ["single", false],
      ["ansi", false],
    ]);
    expect(contexts('echo $(( {{n}} + 1 )) "$(({{n}}))"; (( {{n}} > 1 )); a[{{n}}]=1')).toEqual([
      ["arith", true],
      ["arith", true],
      ["arith", true],
      ["arith", true],
    ]);
    expect(contexts("echo ${s:{{n}}} ${x:-{{d}}} $(echo $(( {{n}} )) {{d}})")).toEqual([
      ["arith", true],
      ["plain", false],
      ["arith", true],
      ["plain", false],
    ]);
    expect(
      contexts('[[ "{{n}}" -eq 1 ]]; let y={{n}}+1; # {{c}}\ncat <<EOF\n{{d}}\nEOF\necho {{d}}'),
    ).toEqual([
      ["double", true],
      ["plain", true],
      ["double", false],
      ["plain", false],
    ]);
  });

  it("a value with spaces, globs, quotes or command substitutions stays one argument and runs nothing", () => {
    const pwned = pwnedPath();
    const hostile = `$(touch ${pwned}) \`touch ${pwned}\` ' " * ;touch ${pwned}`;
    const r = run(
      [
        "set -- {{v}} \"in {{v}} double\" 'in {{v}} single' $'in {{v}} ansi' ${unset:-{{v}}}",
        'printf "%s\\n" "$#" "$@"',
        "cat <<EOF",
        "heredoc {{v}}",
        "EOF",
      ].join("\n"),
      { v: hostile },
    );
    expect(r.code, r.err).toBe(0);
    expect(existsSync(pwned)).toBe(false);
    expect(r.out.split("\n")).toEqual([
      "5",
      hostile,
      `in ${hostile} double`,
      `in ${hostile} single`,
      `in ${hostile} ansi`,
      hostile,
      `heredoc ${hostile}`,
      "",
    ]);
  });

  it.each([
    "echo $(( {{n}} + 1 ))",
    "(( {{n}} > 0 )) && echo yes",
    "a=(1 2); echo ${a[{{n}}]}",
    'if [[ "{{n}}" -eq 1 ]]; then echo one; fi',
    "let y={{n}}+1",
    "declare -i y={{n}}; echo $y",
    "if true; then let y={{n}}; fi",
    "f() { local -ri y={{n}}; echo $y; }; f",
    's=abc; echo "${s:{{n}}}"',
  ])("arithmetic gets a plain number only: %s", (script) => {
    const pwned = pwnedPath();
    for (const n of [`a[$(touch ${pwned})]`, `x[\`touch ${pwned}\`]`, "1+1", " 1", ""]) {
      const r = run(script, { n });
      expect(r.code, `${n}: ${r.out}`).toBe(2);
      expect(r.err).toContain(
        "the value of n ($CATALYST_1) is used in arithmetic but is not a plain number",
      );
      expect(existsSync(pwned)).toBe(false);
    }
    expect(run(script, { n: "1" }).code).toBe(0);
  });

  it("negative numbers keep their meaning in arithmetic", () => {
    expect(run("echo $((10-{{n}}))", { n: "-5" }).out).toBe("15\n");
    expect(run("a=(x y z); echo ${a[{{n}}]}", { n: "-1" }).out).toBe("z\n");
  });
});
