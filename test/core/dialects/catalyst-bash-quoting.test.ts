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

  it("a here-string's word is one word, quoted for where it stands (not a here-document)", () => {
    const pwned = pwnedPath();
    const v = `$(touch ${pwned}) * a  b`;
    const r = run('cat <<< {{v}}; cat <<< "x {{v}}"; echo {{v}}', { v });
    expect(r.code, r.err).toBe(0);
    expect(existsSync(pwned)).toBe(false);
    expect(r.out).toBe(`${v}\nx ${v}\n${v}\n`);
  });

  it("negative numbers keep their meaning in arithmetic", () => {
    expect(run("echo $((10-{{n}}))", { n: "-5" }).out).toBe("15\n");
    expect(run("a=(x y z); echo ${a[{{n}}]}", { n: "-1" }).out).toBe("z\n");
  });
});

describe("Catalyst values that reach bash arithmetic through a variable", () => {
  const hostile = (pwned: string) => [`a[$(touch ${pwned})]`, `x[\`touch ${pwned}\`]`, "1+1", ""];

  it.each([
    "count={{n}}\nif (( count > 0 )); then echo positive; fi",
    "count={{n}}; echo $((count + 1))",
    'count="{{n}}"; echo $(( $count + 1 ))',
    "count={{n}}; echo $[count]",
    "count={{n}}; if [[ $count -gt 0 ]]; then echo yes; fi",
    'count={{n}}; [[ "${count}" -lt 9 ]] && echo yes',
    "count={{n}}; [[ 1 -eq $count ]] && echo yes",
    "count={{n}}; [[ $count -ne 0 && $count -le 9 && $count -ge 1 ]] && echo yes",
    "count={{n}}; let y=count+1; echo $y",
    "declare -i total=0\ntotal={{n}}\necho $total",
    "declare -i total; total+={{n}}; echo $total",
    "f() { local n={{n}}; (( n > 0 )) && echo yes; }; f",
    "f() { local -r n='{{n}}'; (( n > 0 )) && echo yes; }; f",
    "export n={{n}}; (( n > 0 )) && echo yes",
    "readonly n={{n}}; (( n > 0 )) && echo yes",
    "typeset n={{n}}; (( n > 0 )) && echo yes",
    "m={{n}}; c=$m; (( c > 0 )) && echo yes",
    "m={{n}}; c=m; (( c > 0 )) && echo yes",
    "i={{n}}; a=(x y z w); echo ${a[$i]}",
    "i={{n}}; a=(x y z w); echo ${a[i]}",
    "i={{n}}; a[i]=1; echo ok",
    "i={{n}}; s=abcdef; echo ${s:i:1}",
    'declare -a arr; printf -v "arr[{{n}}]" x; echo ok',
    'declare -a arr; read -r "arr[{{n}}]" <<< x; echo ok',
    'declare -a arr=(1); test -v "arr[{{n}}]"; echo ok',
    "declare -a arr=(1); [[ -v 'arr[{{n}}]' ]]; echo ok",
    'declare -a arr=(1); unset "arr[{{n}}]"; echo ok',
    "declare -a arr=(1); unset 'arr[{{n}}]'; echo ok",
    "arr=([{{n}}]=x); echo ok",
    'i={{n}}; declare -a arr; printf -v "arr[$i]" x; echo ok',
    "i={{n}}; declare -a arr=(1); unset 'arr[i]'; echo ok",
    "for i in {{n}}; do (( i > 0 )) && echo yes; done",
    "x=$(echo {{n}}); (( x > 0 )) && echo yes",
    "printf -v c '%s' {{n}}; (( c > 0 )) && echo yes",
    "arr=({{n}}); (( arr[0] > 0 )) && echo yes",
    "for (( i = 0; i < limit; i++ )); do :; done; limit={{n}}; echo ok",
  ])("a variable named in arithmetic takes a plain number only: %s", (script) => {
    const pwned = pwnedPath();
    for (const n of hostile(pwned)) {
      const r = run(script, { n });
      expect(r.code, `${n}: ${r.out}${r.err}`).toBe(2);
      expect(r.err).toContain(
        "the value of n ($CATALYST_1) is used in arithmetic but is not a plain number",
      );
      expect(existsSync(pwned)).toBe(false);
    }
    const plain = run(script, { n: "1" });
    expect(plain.code, plain.err).toBe(0);
  });

  it.each([
    ["eval", 'count={{n}}; eval "echo $count"; echo {{s}}'],
    ["${!name} indirection", "name=count; count={{n}}; (( ${!name} > 0 )); echo {{s}}"],
    ["a name reference (declare -n)", "declare -n r=count; r={{n}}; (( count > 0 )); echo {{s}}"],
    [
      "a variable name built at run time",
      'v=count; declare "$v={{n}}"; (( count > 0 )); echo {{s}}',
    ],
    [
      "a variable name built at run time",
      'v=count; printf -v "$v" %s {{n}}; (( count > 0 )); echo {{s}}',
    ],
    ["a variable name built at run time", "[[ -v {{n}} ]] || true; echo {{s}}"],
    ["a variable name built at run time", "v={{n}}; test ! -v $v; echo {{s}}"],
    ["a variable name built at run time", "read {{n}} <<< 1 2>/dev/null || true; echo {{s}}"],
    [
      "count, read from input, in arithmetic",
      'read -r count <<< "{{n}}"; (( count > 0 )); echo {{s}}',
    ],
    ["REPLY, read from input, in arithmetic", 'read <<< "{{n}}"; (( REPLY > 0 )); echo {{s}}'],
    [
      "BASH_REMATCH, read from input, in arithmetic",
      "[[ {{n}} =~ (.*) ]]; (( BASH_REMATCH[1] > 0 )); echo {{s}}",
    ],
    ["positional parameters ($1, $@) in arithmetic", "f() { (( $1 > 0 )); }; f {{n}}; echo {{s}}"],
    [
      "positional parameters ($1, $@) in arithmetic",
      "f() { local c=$1; (( c > 0 )); }; f {{n}}; echo {{s}}",
    ],
    [
      "positional parameters ($1, $@) in arithmetic",
      "set -- {{n}}; for c; do (( c > 0 )); done; echo {{s}}",
    ],
  ])(
    "where the script hides where values go (%s), every value must be a plain number: %s",
    (why, script) => {
      const pwned = pwnedPath();
      for (const n of hostile(pwned)) {
        const r = run(script, { n, s: "1" });
        expect(r.code, `${n}: ${r.out}${r.err}`).toBe(2);
        expect(r.err).toContain(
          `the value of n ($CATALYST_1) must be a plain number: the script uses ${why}`,
        );
        expect(existsSync(pwned)).toBe(false);
      }
      const word = run(script, { n: "1", s: "a b" });
      expect(word.code).toBe(2);
      expect(word.err).toContain("the value of s ($CATALYST_2) must be a plain number");
      expect(run(script, { n: "1", s: "2" }).code).toBe(0);
    },
  );

  it("values used as words stay data beside arithmetic: spaces, globs and $(…) text pass unchanged", () => {
    const pwned = pwnedPath();
    const s = `$(touch ${pwned}) \`touch ${pwned}\` * a  b [x] arr[$(touch ${pwned})]`;
    const r = run(
      [
        "# eval and let in a comment change nothing",
        'name={{s}}; count={{n}}; label="{{s}}"',
        'printf "[%s]\\n" "$name" "$label" {{s}}',
        'for w in {{s}}; do printf "<%s>\\n" "$w"; done',
        "(( count > 0 )) && echo positive",
        'i=0; while (( i < count )); do echo "{{s}}"; (( i++ )) || true; done',
        'a=(x y); for k in "${!a[@]}"; do echo "$k {{s}}"; done',
        "cat <<EOF",
        "eval {{s}} let x[i]",
        "EOF",
      ].join("\n"),
      { s, n: "2" },
    );
    expect(r.code, r.err).toBe(0);
    expect(existsSync(pwned)).toBe(false);
    expect(r.out.split("\n")).toEqual([
      `[${s}]`,
      `[${s}]`,
      `[${s}]`,
      `<${s}>`,
      "positive",
      s,
      s,
      `0 ${s}`,
      `1 ${s}`,
      `eval ${s} let x[i]`,
      "",
    ]);
  });
});

describe("Catalyst values inside text that something runs as code", () => {
  it.each([
    ["a shell's -c or -s", 'bash -c "echo {{s}}"'],
    ["a shell's -c or -s", "/bin/sh -ec 'echo {{s}}'"],
    ["a shell's -c or -s", "find . -maxdepth 0 -exec sh -c 'echo {{s}}' \\;"],
    ["a shell reading standard input", 'echo "echo {{s}}" | bash'],
    ["a shell's -c or -s", "bash -s <<EOF\necho {{s}}\nEOF"],
    ["source", 'source <(echo "echo {{s}}")'],
    ["source", "printf '%s' 'echo {{s}}' > f.sh && . ./f.sh"],
    ["trap", 'trap "echo {{s}}" EXIT'],
    ["a prompt variable", 'export PS4="{{s}}"; set -x; :'],
    ["ssh or watch", 'ssh -o BatchMode=yes host "echo {{s}}" || true'],
    ["an interpreter's inline program", "python3 -c \"print('{{s}}')\""],
    ["an interpreter's inline program", "perl -ne 'print \"{{s}}\"' </dev/null"],
    ["an interpreter reading standard input", "echo \"print('{{s}}')\" | python3"],
    ["an awk program", "awk 'BEGIN { print \"{{s}}\" }'"],
    ["alias or completion words", 'shopt -s expand_aliases\nalias x="echo {{s}}"\nx'],
    ["alias or completion words", 'compgen -W "{{s}}" a || true'],
    ["prompt expansion (${x@P})", 'x="{{s}}"; echo "${x@P}"'],
    ['a quoted array assignment (declare a="(…)")', 'declare -a a="({{s}})"'],
    ['a quoted array assignment (declare a="(…)")', 'x="{{s}}"; local_x=1; declare -a a="($x)"'],
  ])("%s: every value must be a plain number (%s)", (why, script) => {
    const pwned = pwnedPath();
    const r = run(script, { s: `$(touch ${pwned})'); import os; os.system('touch ${pwned}')#` });
    expect(r.code, r.err).toBe(2);
    expect(r.err).toContain(`the script uses ${why}, which runs text as code`);
    expect(existsSync(pwned)).toBe(false);
  });

  it.each([
    'bash ./deploy.sh "{{s}}" || true',
    "node ./tool.js {{s}} || true",
    "python3 ./tool.py --name {{s}} || true",
    "awk -f prog.awk {{s}} 2>/dev/null || true",
    'echo "{{s}}" | tee /dev/null >/dev/null; echo "the sh and bash words in text"',
    "echo x | sed 's/x/y/' >/dev/null; echo {{s}} > /dev/null",
  ])("a value given to a program as an argument stays a word: %s", (script) => {
    const r = run(script, { s: "a b $(x)" });
    expect(r.err).not.toContain("must be a plain number");
  });
});
