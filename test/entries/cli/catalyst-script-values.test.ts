import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { main } from "../../../src/entries/cli/main.js";

const dirs: string[] = [];
afterEach(() => {
  vi.unstubAllEnvs();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A Catalyst playbook with one bash step; the inputs' defaults are the values under test. */
function catalyst(code: string, inputs: Record<string, string>): string {
  return [
    "name: quoted-values",
    "description: Values reach a bash script as data",
    "owner: Engineer",
    "inputs:",
    ...Object.entries(inputs).map(
      ([name, value]) => `  - string: ${name}\n    default: ${JSON.stringify(value)}`,
    ),
    "steps:",
    "  - name: work",
    "    bash: |",
    ...code.split("\n").map((l) => `      ${l}`),
    "",
  ].join("\n");
}

/**
 * Runs the Catalyst file through `playbook-bot run --allow-scripts`; `pwned` is where an injection
 * would write, `printed` what the script wrote to the file named by `to` (its stdout is not shown).
 */
async function runCatalyst(
  code: (to: string) => string,
  inputs: (pwned: string) => Record<string, string>,
): Promise<{ code: number; out: string; pwned: string; printed: string }> {
  const dir = mkdtempSync(join(tmpdir(), "pb-catalyst-"));
  dirs.push(dir);
  const pwned = join(dir, "pwned");
  const file = join(dir, "quoted-values.yaml");
  const printed = join(dir, "printed.txt");
  writeFileSync(file, catalyst(code(printed), inputs(pwned)));
  vi.stubEnv("GITHUB_TOKEN", "");
  let out = "";
  const exit = await main(["run", file, "--mode", "autonomous", "--scratch", "--allow-scripts"], {
    out: (t) => void (out += t),
    err: (t) => void (out += t),
    cwd: dir,
  });
  const scratch = /Scratch repository: (.+)\n/.exec(out)?.[1];
  if (scratch) dirs.push(scratch);
  return {
    code: exit,
    out,
    pwned,
    printed: existsSync(printed) ? readFileSync(printed, "utf8") : "",
  };
}

describe("Catalyst values in a converted bash script (run with --allow-scripts)", () => {
  it("each value arrives as one argument and as data, quoted or not where it stood", async () => {
    const r = await runCatalyst(
      (to) =>
        [
          "set -- {{spaced}} {{hostile}} \"{{hostile}}\" '{{spaced}}'",
          `printf "args=%s\\n" "$#" > ${to}`,
          `printf "[%s]\\n" "$@" >> ${to}`,
        ].join("\n"),
      (pwned) => ({ spaced: "a b  *", hostile: `$(touch ${pwned}) \`touch ${pwned}\`` }),
    );
    expect(r.code, r.out).toBe(0);
    expect(existsSync(r.pwned)).toBe(false);
    const hostile = `[$(touch ${r.pwned}) \`touch ${r.pwned}\`]`;
    expect(r.printed.split("\n")).toEqual(["args=4", "[a b  *]", hostile, hostile, "[a b  *]", ""]);
  });

  it("a value in arithmetic runs nothing: it must be a plain number, else the step stops and says so", async () => {
    const arithmetic = (to: string) =>
      [
        `echo sum=$(( {{count}} + 1 )) > ${to}`,
        `(( {{count}} > 0 )) && echo positive >> ${to}`,
        `if [[ "{{count}}" -eq 7 ]]; then echo seven >> ${to}; fi`,
      ].join("\n");
    const hostile = await runCatalyst(arithmetic, (pwned) => ({ count: `a[$(touch ${pwned})]` }));
    expect(hostile.code).not.toBe(0);
    expect(existsSync(hostile.pwned)).toBe(false);
    expect(hostile.out).toContain("is used in arithmetic but is not a plain number");
    expect(hostile.printed).toBe("");

    const plain = await runCatalyst(arithmetic, () => ({ count: "7" }));
    expect(plain.code, plain.out).toBe(0);
    expect(plain.printed).toBe("sum=8\npositive\nseven\n");
  });
});

/**
 * Bash also evaluates a variable's value as an arithmetic expression where the variable is named
 * in arithmetic, assigned to an integer variable, or given as a subscript in a quoted name
 * (`printf -v "arr[i]"`): the value `a[$(cmd)]` would run `cmd` there.
 */
describe("Catalyst values that reach bash arithmetic through a variable (run with --allow-scripts)", () => {
  const scripts: [string, (to: string) => string][] = [
    [
      "named in (( ))",
      (to) => `count={{count}}\nif (( count > 0 )); then echo positive > ${to}; fi`,
    ],
    [
      "expanded in [[ -gt ]]",
      (to) => `count={{count}}\nif [[ $count -gt 0 ]]; then echo positive > ${to}; fi`,
    ],
    ["assigned to declare -i", (to) => `declare -i total=0\ntotal={{count}}\necho $total > ${to}`],
    [
      "printf -v into a subscript",
      (to) => `declare -a arr\nprintf -v "arr[{{count}}]" x\necho ok > ${to}`,
    ],
    ["let", (to) => `count={{count}}\nlet next=count+1\necho $next > ${to}`],
    ["unset of a subscript", (to) => `declare -a arr=(1)\nunset "arr[{{count}}]"\necho ok > ${to}`],
  ];
  it.each(scripts)("%s runs nothing: the step stops before anything runs", async (_name, code) => {
    const hostile = await runCatalyst(code, (pwned) => ({ count: `a[$(touch ${pwned})]` }));
    expect(existsSync(hostile.pwned), hostile.out).toBe(false);
    expect(hostile.code).not.toBe(0);
    expect(hostile.out).toContain("is used in arithmetic but is not a plain number");
    expect(hostile.printed).toBe("");

    const plain = await runCatalyst(code, () => ({ count: "3" }));
    expect(plain.code, plain.out).toBe(0);
    expect(plain.printed).not.toBe("");
  });
});

/**
 * A value inside text that something runs as code — another shell's `-c` or standard input,
 * `source`, a `trap` action, the `PS4` prompt, an interpreter's inline program — is code there,
 * however it was quoted in this script: like `eval`, such a script takes only plain numbers.
 */
describe("Catalyst values inside text another shell or interpreter runs (run with --allow-scripts)", () => {
  const scripts: [string, (to: string) => string][] = [
    ["bash -c", (to) => `bash -c "echo {{v}} > ${to}"`],
    ["sh -c", (to) => `sh -c 'echo {{v}}' > ${to}`],
    ["a shell reading a pipe", (to) => `echo "echo {{v}}" | bash > ${to}`],
    ["a shell reading a here-document", (to) => `bash > ${to} <<EOF\necho {{v}}\nEOF`],
    ["find -exec sh -c", (to) => `find . -maxdepth 0 -exec sh -c "echo {{v}}" \\; > ${to}`],
    ["source", (to) => `source <(echo "echo {{v}}") > ${to}`],
    [". (dot)", (to) => `printf '%s\\n' "echo {{v}}" > run.sh\n. ./run.sh > ${to}`],
    ["trap", (to) => `trap "echo {{v}} > ${to}" EXIT`],
    ["PS4", (to) => `PS4="{{v}}"\nset -x\necho ok > ${to}`],
    ["python -c", (to) => `python3 -c "print('{{v}}')" > ${to}`],
    ["awk", (to) => `awk 'BEGIN { print "{{v}}" }' > ${to}`],
    ["${x@P}", (to) => `x="{{v}}"\necho "\${x@P}" > ${to}`],
    ["compgen -W", (to) => `compgen -W "{{v}}" a > ${to} || true`],
    ['declare a="(…)"', (to) => `declare -a a="({{v}})"\necho ok > ${to}`],
  ];
  it.each(scripts)("%s runs nothing: the step stops before anything runs", async (_name, code) => {
    const hostile = await runCatalyst(code, (pwned) => ({
      v: `$(touch ${pwned})'); import os; os.system('touch ${pwned}'); print('" system("touch ${pwned}") "`,
    }));
    expect(existsSync(hostile.pwned), hostile.out).toBe(false);
    expect(hostile.code).not.toBe(0);
    expect(hostile.out).toContain("must be a plain number: the script uses");
    expect(hostile.out).toContain("which runs text as code");
    expect(hostile.printed).toBe("");

    const plain = await runCatalyst(code, () => ({ v: "3" }));
    expect(plain.code, plain.out).toBe(0);
  });
});

/**
 * Where bash takes a value as a variable's name (`test -v`, `printf -v`, `read`, `declare`,
 * `local`), it evaluates a subscript in it: the name `a[$(cmd)]` runs `cmd`. A name chosen by a
 * value is a name built at run time, and the script then takes only plain numbers.
 */
describe("Catalyst values used as variable names (run with --allow-scripts)", () => {
  const scripts: [string, (to: string) => string][] = [
    ["[[ -v ]]", (to) => `if [[ -v {{v}} ]]; then :; fi\necho ok > ${to}`],
    ["test -v", (to) => `test -v "{{v}}" || echo ok > ${to}`],
    ["printf -v", (to) => `printf -v {{v}} '%s' x 2>/dev/null || true\necho ok > ${to}`],
    ["read", (to) => `read {{v}} <<< x 2>/dev/null || true\necho ok > ${to}`],
    ["declare", (to) => `declare {{v}}=1 2>/dev/null || true\necho ok > ${to}`],
    ["local", (to) => `f() { local {{v}}=1 || true; }\nf 2>/dev/null\necho ok > ${to}`],
    [
      "a variable's value as the name",
      (to) => `name={{v}}\n[[ -v $name ]] || true\necho ok > ${to}`,
    ],
  ];
  it.each(scripts)("%s runs nothing: the step stops before anything runs", async (_name, code) => {
    const hostile = await runCatalyst(code, (pwned) => ({ v: `a[$(touch ${pwned})]` }));
    expect(existsSync(hostile.pwned), hostile.out).toBe(false);
    expect(hostile.code).not.toBe(0);
    expect(hostile.out).toContain("the script uses a variable name built at run time");
    expect(hostile.printed).toBe("");

    const plain = await runCatalyst(code, () => ({ v: "3" }));
    expect(plain.code, plain.out).toBe(0);
  });
});

/**
 * Some programs read an argument as code of their own: sed's program (its `e` and `w` run and
 * write), a jq filter, a git setting that names a command, an interpreter's inline program after
 * other options. A value in a sed program or a jq string is escaped for its place there; one
 * where it could leave its place is refused.
 */
describe("Catalyst values inside a program's own code (run with --allow-scripts)", () => {
  it("a value in sed's replacement is the text it holds and runs nothing", async () => {
    const code = (to: string) =>
      `printf 'version: 0\\n' > f\nsed -i "s|version: .*|version: {{v}}|" f\ncat f > ${to}`;
    const hostile = await runCatalyst(code, (pwned) => ({ v: `touch ${pwned}|e;#` }));
    expect(hostile.code, hostile.out).toBe(0);
    expect(existsSync(hostile.pwned)).toBe(false);
    expect(hostile.printed).toBe(`version: touch ${hostile.pwned}|e;#\n`);

    const plain = await runCatalyst(code, () => ({ v: "1.2.3" }));
    expect(plain.code, plain.out).toBe(0);
    expect(plain.printed).toBe("version: 1.2.3\n");
  });

  it("a value in a jq string is the text it holds", async () => {
    const r = await runCatalyst(
      (to) => `jq -rn '"v={{v}}"' > ${to}`,
      () => ({ v: "\\(1 + 1)" }),
    );
    expect(r.code, r.out).toBe(0);
    expect(r.printed).toBe("v=\\(1 + 1)\n");
  });

  const refused: [string, (to: string) => string, (pwned: string) => string, string][] = [
    [
      "a sed command",
      (to) => `printf 'x\\n' > f\nsed -n "{{v}}" f > ${to}`,
      (p) => `1e touch ${p}`,
      "is in sed's program text",
    ],
    [
      "a git alias",
      (to) => `git -c alias.pw={{v}} pw > ${to} || true`,
      (p) => `!touch ${p}`,
      "is in a git setting",
    ],
    [
      "perl -i.bak -pe",
      (to) => `printf 'x\\n' > f\nperl -i.bak -pe 's/x/{{v}}/' f\ncat f > ${to}`,
      (p) => `y/; system q{touch ${p}}; s/y/y`,
      "an interpreter's inline program",
    ],
    [
      "python3 -W ignore -c",
      (to) => `python3 -W ignore -c "print('{{v}}')" > ${to}`,
      (p) => `'); import os; os.system('touch ${p}'); print('`,
      "an interpreter's inline program",
    ],
    [
      "env -S",
      (to) => `env -S 'sh -c "echo {{v}}"' > ${to}`,
      (p) => `$(touch ${p})`,
      "the script uses a shell's -c or -s, which runs text as code",
    ],
    [
      "xargs -I into sed",
      (to) => `printf 'x\\n' > f\necho "{{v}}" | xargs -I{} sed -n "s|x|{}|" f > ${to}`,
      (p) => `touch ${p}|e;#`,
      "xargs putting its input into sed's or jq's arguments",
    ],
    [
      "GIT_EXTERNAL_DIFF",
      (to) =>
        `echo a > a; echo b > b\nGIT_EXTERNAL_DIFF={{v}} git diff --no-index a b > ${to} || true`,
      (p) => `touch ${p};:`,
      "it is assigned to GIT_EXTERNAL_DIFF, whose value a program runs",
    ],
  ];
  it.each(refused)("%s: the step stops before anything runs", async (_name, code, value, why) => {
    const hostile = await runCatalyst(code, (pwned) => ({ v: value(pwned) }));
    expect(existsSync(hostile.pwned), hostile.out).toBe(false);
    expect(hostile.code).not.toBe(0);
    expect(hostile.out).toContain("failed at work");
    expect(hostile.out).toContain("the value of v ($CATALYST_1) must be a plain number");
    expect(hostile.out).toContain(why);
    expect(hostile.printed).toBe("");
  });

  it("a value that starts sed's file operand with - is refused: sed reads options after operands", async () => {
    const code = (to: string) => `printf 'x\\n' > f\nsed -n "s/x/y/p" {{v}} > ${to}`;
    const hostile = await runCatalyst(code, (pwned) => ({ v: `--expression=1e touch ${pwned}` }));
    expect(existsSync(hostile.pwned), hostile.out).toBe(false);
    expect(hostile.code).not.toBe(0);
    expect(hostile.out).toContain('starts with "-", and sed would read it as an option');

    const plain = await runCatalyst(code, () => ({ v: "f" }));
    expect(plain.code, plain.out).toBe(0);
    expect(plain.printed).toBe("y\n");
  });
});

describe("playbook-bot run --allow-scripts: a value that starts a command's word", () => {
  it("find with -delete as the value deletes nothing; a path value still works", async () => {
    const code = (to: string) =>
      `mkdir -p keep && touch keep/a.tmp keep/b.txt\nfind "{{v}}" -name '*.tmp' -print > ${to}`;
    const hostile = await runCatalyst(code, () => ({ v: "-delete" }));
    expect(hostile.code).not.toBe(0);
    // The run names the step, the value and what to do about it.
    expect(hostile.out).toContain(
      'failed at work: the bash script exited with 2: the value of v ($CATALYST_1) starts with "-", and find would read it as an option: write ./ before it, or make the value not start with -',
    );
    expect(hostile.printed).toBe("");

    const plain = await runCatalyst(code, () => ({ v: "keep" }));
    expect(plain.code, plain.out).toBe(0);
    expect(plain.printed).toBe("keep/a.tmp\n");
  });

  it("a value as the command's name is refused before anything runs", async () => {
    const r = await runCatalyst(
      (to) => `{{tool}} > ${to}`,
      (pwned) => ({ tool: `touch ${pwned}` }),
    );
    expect(r.code).not.toBe(0);
    expect(existsSync(r.pwned)).toBe(false);
    expect(r.out).toContain("{{tool}} names the command to run");
  });
});
