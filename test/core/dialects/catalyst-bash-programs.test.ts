import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { shellText } from "../../../src/core/dialects/catalyst/scripts.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/**
 * The converted script run as the runtime runs it (`bash -e -o pipefail -c`), in a new folder
 * holding `f` (one line, `x`); `pwned` there is where an injected command writes.
 */
function run(script: string, values: Record<string, string>) {
  const dir = mkdtempSync(join(tmpdir(), "pb-programs-"));
  dirs.push(dir);
  writeFileSync(join(dir, "f"), "x\n");
  const { text, refs } = shellText(script, "bash");
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    SECRET: "top-secret",
  };
  for (const r of refs) env[r.env] = values[r.expr] ?? "";
  const res = spawnSync("bash", ["--noprofile", "--norc", "-e", "-o", "pipefail", "-c", text], {
    env,
    cwd: dir,
    encoding: "utf8",
    timeout: 10_000,
  });
  const file = join(dir, "f");
  return {
    code: res.status,
    out: res.stdout,
    err: res.stderr,
    text,
    pwned: existsSync(join(dir, "pwned")),
    f: existsSync(file) ? readFileSync(file, "utf8") : "",
  };
}

/** Values that end an s command's part and add the `e` flag or command, or `w`, if not escaped. */
const ESCAPES = [
  "touch pwned/e;#",
  "y/e touch pwned\n#",
  "y/w pwned\n#",
  "x\n1e touch pwned\n#",
  "\\/e touch pwned;#",
  "&\\1 touch pwned|e;#",
];

describe("Catalyst values in a sed program: escaped where they stand", () => {
  it.each([
    ['sed -i "s/x/{{v}}/" f', "/"],
    ["sed -i 's|x|{{v}}|g' f", "|"],
    ['sed -i -e "s#x#{{v}}#" f', "#"],
    ['sed --in-place --expression="s/x/{{v}}/" f', "/"],
    ['sed -i.bak -E "s/(x)/{{v}}/" f', "/"],
    ['echo f | xargs sed -i "s/x/{{v}}/"', "/"],
    ['find . -name f -exec sed -i "s/x/{{v}}/" {} \\;', "/"],
    ['env LC_ALL=C sed -i "s/x/{{v}}/" f', "/"],
    ['command sed -i "s/x/{{v}}/" f', "/"],
    ['cat f | sed "s/x/{{v}}/" > g && mv g f', "/"],
    ['result=$(sed "s/x/{{v}}/" f); printf "%s\\n" "$result" > f', "/"],
  ])("a replacement runs nothing and is the value: %s", (script) => {
    for (const v of ESCAPES) {
      const r = run(script, { v });
      expect(r.code, `${JSON.stringify(v)}: ${r.err}`).toBe(0);
      expect(r.pwned, v).toBe(false);
      expect(r.f).toBe(`${v}\n`);
    }
  });

  it("a normal version, name or path is substituted as before", () => {
    for (const v of ["1.2.3", "v2.0.0-rc.1+build.5", "my-package", "src/lib/index.ts", "a & b"]) {
      const r = run('printf "version: 0.0.1\\n" > f\nsed -i "s/version: .*/version: {{v}}/" f', {
        v,
      });
      expect(r.code, r.err).toBe(0);
      expect(r.f).toBe(`version: ${v}\n`);
    }
    const two = run('printf "name=old\\n" > f\nsed -i -e "s/{{a}}/{{b}}/g" f', {
      a: "old",
      b: "new/name",
    });
    expect(two.f).toBe("name=new/name\n");
  });

  it.each([
    ['sed -i "s/{{v}}/MATCHED/" f', false],
    ['sed -i -E "s/{{v}}/MATCHED/" f', false],
    ['sed -i -r "s,{{v}},MATCHED," f', false],
    ['sed -i "/{{v}}/s/.*/MATCHED/" f', false],
    ['sed -i "\\%{{v}}%s/.*/MATCHED/" f', false],
  ])("a pattern matches the value itself and runs nothing: %s", (script) => {
    for (const v of ["x/touch pwned/e;#", "x/w pwned;#", "a.b*[c]^$\\/&|+?(){}%,#", "1.2.3", "x"]) {
      const r = run(`printf '%s\\n' "{{v}}" > f\n${script}`, { v });
      expect(r.code, `${JSON.stringify(v)}: ${r.err}`).toBe(0);
      expect(r.pwned, v).toBe(false);
      expect(r.f, v).toBe("MATCHED\n");
    }
    // A pattern that would match anything as a regular expression matches only itself.
    const dot = run(`printf 'abc\\n' > f\n${script}`, { v: "a.c" });
    expect(dot.f).toBe("abc\n");
    // A newline in the value is a newline in the pattern, never the end of the command.
    for (const v of ["x/e touch pwned\n#", "x\n1e touch pwned", "x/w pwned\n#"]) {
      const r = run(script, { v });
      expect(r.code, `${JSON.stringify(v)}: ${r.err}`).toBe(0);
      expect(r.pwned, v).toBe(false);
      expect(r.f).toBe("x\n");
    }
  });

  it("an a, i or c text is the value's lines and runs nothing", () => {
    const v = "y\n1e touch pwned\nz\\";
    const r = run('sed -i "1a {{v}}" f\nsed -i "1i\\\\\n{{v}}" f', { v });
    expect(r.code, r.err).toBe(0);
    expect(r.pwned).toBe(false);
    expect(r.f).toBe(`${v}\nx\n${v}\n`);
  });

  it("the same value escaped for two places keeps each its own form", () => {
    const r = run('sed -i -e "s/x/{{v}}/" -e "s|{{v}}|<&>|" f', { v: "a/b|c" });
    expect(r.code, r.err).toBe(0);
    expect(r.f).toBe("<a/b|c>\n");
  });
});

describe("Catalyst values in a sed program where they cannot be escaped: refused", () => {
  it.each([
    ["the whole program", 'sed -n "{{v}}p" f', "1e touch pwned\n#"],
    ["a command's place", 'sed -i "{{v}}q" f', "1e touch pwned\n#"],
    ["an s command's flags", 'sed -i "s/x/y/{{v}}" f', "e"],
    ["a bracket expression", 'sed -i "s/[{{v}}]/y/" f', "x]/touch pwned/e;#"],
    ["after a backslash", "sed -i 's/x/y\\{{v}}/' f", "/e;#"],
    ["a w file name", 'sed -n "/x/w {{v}}" f', "out\n1e touch pwned"],
    ["a label", 'sed -n ":{{v}}" f', "a\n1e touch pwned"],
    ["a y command", 'sed -i "y/x/{{v}}/" f', "/\n1e touch pwned\n#"],
    ["a variable in the program", 'new={{v}}\nsed -i "s/x/$new/e" f', "touch pwned"],
    ["a command's output in the program", 'sed -i "s/x/$(echo {{v}})/e" f', "touch pwned"],
    ["a positional parameter", 'f() { sed -i "s/x/$1/e" f; }\nf {{v}}', "touch pwned"],
    [
      "a loop over positional parameters",
      'set -- {{v}}\nfor a; do sed -i "s/x/$a/e" f; done',
      "touch pwned",
    ],
    ["a variable read from input", 'read -r a <<< "{{v}}"\nsed -i "s/x/$a/e" f', "touch pwned"],
    ["a program read after an expansion", 'sed -i "s/$HOME/y/;s/x/{{v}}/e" f', "touch pwned"],
    ["sed -f - (standard input)", "sed -f - f <<EOF\ns/x/{{v}}/e\nEOF", "touch pwned"],
    ["sed -f <( )", 'sed -i -f <(echo "s/x/{{v}}/e") f', "touch pwned"],
    ["sed --file=/dev/stdin", 'echo "s/x/{{v}}/e" | sed -i --file=/dev/stdin f', "touch pwned"],
    ["xargs -I into sed", 'echo "{{v}}" | xargs -I{} sed -i "s/x/{}/e" f', "touch pwned"],
  ])("%s: the step stops before anything runs", (_where, script, v) => {
    const r = run(script, { v });
    expect(r.code, r.err).toBe(2);
    expect(r.pwned).toBe(false);
    expect(r.err).toMatch(
      /the value of v \(\$CATALYST_1\) must be a plain number: (it|the script)/,
    );
    expect(r.f).toBe("x\n");
  });

  it("the message says where a value may stand instead", () => {
    const r = run('sed -i "s/x/y/{{v}}" f', { v: "e" });
    expect(r.err).toContain("is in sed's program text where it could end its place");
    expect(r.err).toContain("put it in an s command's pattern or replacement (s/…/{{v}}/)");
  });

  it("a plain number may stand anywhere in the program", () => {
    expect(run('sed -i "s/x/y/{{v}}" f', { v: "1" }).f).toBe("y\n");
    expect(run('sed -i "{{v}}s/x/z/" f', { v: "1" }).f).toBe("z\n");
  });

  it("a value as a file name that starts with - is refused (sed takes options after operands)", () => {
    const hostile = run('sed -n "s/x/y/p" {{v}}', { v: "--expression=1e touch pwned" });
    expect(hostile.code).toBe(2);
    expect(hostile.pwned).toBe(false);
    expect(hostile.err).toContain('starts with "-", and sed would read it as an option');
    expect(run('sed -n "s/x/y/p" {{v}}', { v: "f" }).out).toBe("y\n");
    const dashes = run('sed -n "s/x/y/p" -- {{v}} || true', { v: "--expression=1e touch pwned" });
    expect(dashes.code).toBe(0);
    expect(dashes.pwned).toBe(false);
  });

  it("a value given as -f's file, a backup suffix or --arg stays a word", () => {
    const r = run('echo "s/x/y/" > prog\nsed -i{{s}} -f {{p}} f', { s: ".bak", p: "prog" });
    expect(r.code, r.err).toBe(0);
    expect(r.f).toBe("y\n");
  });
});

describe("Catalyst values in a jq filter", () => {
  it("inside a string: escaped, the environment is not read", () => {
    for (const v of ['" + env.SECRET + "', "\\(env.SECRET)", '\\"\\(env.SECRET)', "a\nb"]) {
      const r = run('jq -rn "\\"value: {{v}}\\""\njq -rn \'"\\(1) {{v}}"\'', { v });
      expect(r.code, r.err).toBe(0);
      expect(r.out).not.toContain("top-secret");
      expect(r.out).toBe(`value: ${v}\n1 ${v}\n`);
    }
  });

  it("a normal value in a string works: jq '.version = \"{{v}}\"'", () => {
    const r = run("echo '{}' | jq -c '.version = \"{{v}}\"'", { v: "1.2.3" });
    expect(r.out).toBe('{"version":"1.2.3"}\n');
  });

  it.each([
    ["outside a string", "jq -rn '{{v}}'", "env.SECRET"],
    ["a path", "echo '{}' | jq -r '.{{v}}'", "a, env.SECRET"],
    ["an interpolation", "jq -rn '\"\\({{v}})\"'", "env.SECRET"],
    ["a comment", "jq -rn '1 # {{v}}'", "x\nenv.SECRET"],
  ])("%s: refused", (_where, script, v) => {
    const r = run(script, { v });
    expect(r.code).toBe(2);
    expect(r.out).not.toContain("top-secret");
    expect(r.err).toContain("is in jq's filter outside a string");
  });

  it("a value given with --arg is data", () => {
    const r = run("jq -rn --arg v {{v}} '$v'", { v: "env.SECRET" });
    expect(r.out).toBe("env.SECRET\n");
  });
});

describe("Catalyst values in git settings and variables that name a command", () => {
  it.each([
    ["git -c alias.x", "git -c alias.pw={{v}} pw || true", "!touch pwned"],
    ["git -c core.*", "git -c core.pager={{v}} -p log -1 >/dev/null 2>&1 || true", "touch pwned"],
    ["git config", "git init -q . && git config core.editor {{v}}", "touch pwned"],
    ["git config key", "git init -q . && git config {{v}} 'touch pwned'", "core.editor"],
    [
      "GIT_EXTERNAL_DIFF",
      "echo a > a; echo b > b; GIT_EXTERNAL_DIFF={{v}} git diff --no-index a b || true",
      "touch pwned;:",
    ],
  ])("%s: refused", (_name, script, v) => {
    const r = run(script, { v });
    expect(r.code, r.err).toBe(2);
    expect(r.pwned).toBe(false);
    expect(r.err).toContain("must be a plain number");
  });

  it("user.name and user.email from a value work", () => {
    const r = run("git -c user.name={{n}} -c user.email={{e}} var GIT_AUTHOR_IDENT", {
      n: "A; touch pwned",
      e: "a@example.com",
    });
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain("A; touch pwned <a@example.com>");
  });
});

describe("Programs that run text as code, with options before the code", () => {
  it.each([
    ["a shell's -c or -s", 'bash -o pipefail -c "echo {{s}}"'],
    ["a shell's -c or -s", 'dash -e -c "echo {{s}}"'],
    ["a shell's -c or -s", "env -S 'sh -c \"echo {{s}}\"'"],
    ["a shell's -c or -s", 'docker run --rm alpine sh -c "echo {{s}}"'],
    ["a shell's -c or -s", 'busybox sh -c "echo {{s}}"'],
    ["a shell's -c or -s", 'zsh -c "echo {{s}}"'],
    ["a shell's -c or -s", 'ksh -c "echo {{s}}"'],
    ["a shell's -c or -s", "echo f | xargs -I{} sh -c 'echo {} {{s}}'"],
    ["an interpreter's inline program", "perl -i.bak -pe 's/x/{{s}}/' f"],
    ["an interpreter's inline program", "perl -I/tmp -e 'print \"{{s}}\"'"],
    ["an interpreter's inline program", "python3 -W ignore -c \"print('{{s}}')\""],
    ["an interpreter's inline program", "node --input-type=commonjs -e \"console.log('{{s}}')\""],
    ["an interpreter's inline program", "node -p \"'{{s}}'\""],
    ["an interpreter's inline program", "ruby -I lib -e \"puts '{{s}}'\""],
    ["an interpreter's inline program", "php -d display_errors=1 -r \"echo '{{s}}';\""],
    ["an interpreter's inline program", "deno eval \"console.log('{{s}}')\""],
    ["an awk program", "awk -f /dev/null -e 'BEGIN { print \"{{s}}\" }' 2>/dev/null || true"],
    ["env -S", "env -S 'printf %s {{s}}'"],
    ["GNU parallel", "parallel echo {{s}} ::: a"],
  ])("%s: every value must be a plain number (%s)", (why, script) => {
    const { text } = shellText(script, "bash");
    expect(text).toContain(
      `the script uses ${why.replaceAll("'", "'\\''")}, which runs text as code`,
    );
  });

  it("they run nothing where the programs are here", () => {
    const v = "$(touch pwned)'); import os; os.system('touch pwned'); print('";
    for (const script of [
      'bash -o pipefail -c "echo {{v}}"',
      "env -S 'sh -c \"echo {{v}}\"'",
      "perl -i.bak -pe 's/x/{{v}}/' f",
      "python3 -W ignore -c \"print('{{v}}')\"",
    ]) {
      const r = run(script, { v });
      expect(r.code, script).toBe(2);
      expect(r.pwned, script).toBe(false);
    }
  });

  it.each([
    "python3 ./tool.py -c {{s}} || true",
    "bash ./deploy.sh -c {{s}} || true",
    "node build.js -e {{s}} || true",
    "python3 -m pip install -r requirements.txt {{s}} || true",
    "python3 -m venv .venv && bash scripts/setup -c {{s}} || true",
    "sed -n 's/x/y/p' f; echo {{s}}",
  ])("a script file's own -c or -e is its argument: %s", (script) => {
    expect(shellText(script, "bash").text).not.toContain("must be a plain number");
  });
});

describe("How a value in a program's arguments is read", () => {
  /** escaped, refused (a plain number only), option (no leading -), or word (untouched). */
  function outcome(script: string): string {
    const { text } = shellText(script, "bash");
    if (text.includes("must be a plain number")) return "refused";
    if (text.includes("CATALYST_ESC_")) return "escaped";
    if (text.includes("would read it as an option")) return "option";
    return "word";
  }

  it.each([
    ["sed -n '1,/{{v}}/p' f", "escaped"],
    ["sed -n '0,\\,{{v}},Ip' f", "escaped"],
    ["sed -n '$!{/a/d;=;l 5;q3};s/x/{{v}}/' f", "escaped"],
    ["sed -n '/a/,+2{s/x/{{v}}/p}' f", "escaped"],
    ["sed -e ':a' -e 'N;$!ba' -e 's/x/{{v}}/' f", "escaped"],
    ["sed 's/x/y/w out\ns/a/{{v}}/' f", "escaped"],
    ["sed -s -z -u --posix -l 5 --line-length=5 -n 's/x/{{v}}/' f 2>/dev/null", "escaped"],
    ["sed -ne 's/x/y/; s/a/{{v}}/p' f", "escaped"],
    ["sed -es/x/{{v}}/ f", "escaped"],
    ["sed --expression 's/x/{{v}}/' f", "escaped"],
    ["sed 's/x/{{v}}/' < f > g", "escaped"],
    ["sed 's/x/{{v}}/' <<< x", "escaped"],
    ["sed 's/[[:alpha:]]/{{v}}/' f", "escaped"],
    ["sed 's/[^]/]/{{v}}/' f", "refused"],
    ["sed 's/[[:alpha:]{{v}}]/y/' f", "refused"],
    ["sed 's/x/y/;# {{v}}' f", "refused"],
    ["sed 'r {{v}}' f", "refused"],
    ["sed 'b {{v}}' f", "refused"],
    ["sed 'K{{v}}' f", "refused"],
    ["sed 'a\\\\{{v}}' f", "refused"],
    ["sed \"s/x/$'\\t'{{v}}/\" f", "refused"],
    ["sed $'s/x/{{v}}/' f", "refused"],
    ['sed "s/x/`echo a`{{v}}/" f', "refused"],
    ["sed -e{{v}} f", "refused"],
    ["sed {{v}} f", "refused"],
    ["sed -f prog {{v}}", "option"],
    ["sed $opts {{v}} f", "refused"],
    ['sed "$opts" "s/x/{{v}}/" f', "escaped"],
    ["sed -n 's/x/y/p' \"{{v}}\"", "option"],
    ["sed -n 's/x/y/p' '' f 2>&1 >/dev/null; echo {{v}}", "word"],
    ["sed -e 's/a/b/' $more 's/x/{{v}}/' f", "escaped"],
    ["sed -f prog -- {{v}}", "word"],
    ["sed -i{{v}} 's/x/y/' f", "word"],
    ["sed 's/x/y/' f > {{v}}", "word"],
    ["echo {{v}} | sed 's/x/y/'", "word"],
    ['echo "sed {{v}}"', "word"],
    ["x=`sed 's/x/{{v}}/' f`", "escaped"],
    ["jq -r '.a # c\n| \"\\(.b) {{v}}\"' f", "escaped"],
    ['jq -r "$filter{{v}}" f', "refused"],
    ["jq -r '\"\\({{v}})\"' f", "refused"],
    ["jq -f prog.jq {{v}}", "option"],
    ["jq $opts {{v}}", "refused"],
    ['jq "$opts" \'"{{v}}"\'', "escaped"],
    ["jq -f prog.jq -- {{v}}", "word"],
    ["jq --argjson n 1 --slurpfile s f -L lib --indent 2 -n '\"{{v}}\"'", "escaped"],
    ['jq -n \'"a\\\\" + "{{v}}"\'', "escaped"],
    ["git -C repo -c core.editor={{v}} commit", "refused"],
    ["git -c color.ui={{v}} log", "word"],
    ["git config --global user.email {{v}}", "option"],
    ["git commit -m {{v}}", "option"],
    ["git commit -m={{v}}", "word"],
    ["find {{v}} -name x", "option"],
    ["find -- {{v}} -name x", "option"],
    ["ls -- {{v}}", "word"],
    ["x=$(curl -sL {{v}})", "option"],
    ["a=({{v}} b)", "word"],
    ['[[ -n x && "{{v}}" == y ]]', "word"],
    ['printf "%s\\n" {{v}}', "word"],
    ["printf {{v}}", "option"],
    ["printf -v x {{v}}", "option"],
    ['printf -v x "%s" {{v}}', "word"],
    ["printf -- {{v}}", "word"],
    ['"$tool" {{v}}', "option"],
    ["ls 2>&1 &> log {{v}}", "option"],
    ['case x in\n  a) rm "{{v}}" ;;\nesac', "option"],
    ['(cd /; ls) && [[ "{{v}}" ]] || echo {{v}}', "word"],
    ["export EDITOR={{v}}", "refused"],
    ["LABEL={{v}} git log", "word"],
  ])("%s: %s", (script, expected) => {
    expect(outcome(script)).toBe(expected);
  });
});

describe("Values that start a command's word: no leading - unless -- comes first", () => {
  it("find with -delete as the value deletes nothing and says what to do", () => {
    const script = "touch a.tmp\nfind \"{{v}}\" -name '*.tmp' -print";
    const hostile = run(script, { v: "-delete" });
    expect(hostile.code).toBe(2);
    expect(hostile.f).toBe("x\n");
    expect(hostile.err).toContain(
      'the value of v ($CATALYST_1) starts with "-", and find would read it as an option: write ./ before it, or make the value not start with -',
    );
    // find reads -delete as its expression even after --.
    expect(run(`find -- "{{v}}" -name f`, { v: "-delete" }).f).toBe("x\n");
    const plain = run(script, { v: "." });
    expect(plain.code, plain.err).toBe(0);
    expect(plain.out).toBe("./a.tmp\n");
  });

  it("a value that reaches a word's start through a variable is checked too", () => {
    const script = 'touch a.tmp\nwhere="{{v}}"\nfind "$where" -name \'*.tmp\' -print';
    const hostile = run(script, { v: "-delete" });
    expect(hostile.code).toBe(2);
    expect(hostile.f).toBe("x\n");
    expect(hostile.err).toContain("the program given $where would read it as an option");
    const plain = run(script, { v: "." });
    expect(plain.code, plain.err).toBe(0);
    expect(plain.out).toBe("./a.tmp\n");
    // The same value in a variable used only inside a word is data, whatever it starts with.
    const inside = run('label="{{v}}"\necho "x$label"', { v: "-n" });
    expect([inside.code, inside.out]).toEqual([0, "x-n\n"]);
  });

  it("a value after an empty one at a word's start is checked", () => {
    const hostile = run('touch a.tmp\nfind "{{a}}{{b}}" -name "*.tmp" -print', {
      a: "",
      b: "-delete",
    });
    expect(hostile.code).toBe(2);
    expect(hostile.f).toBe("x\n");
  });

  it("git clone with --upload-pack as the value runs nothing", () => {
    const script =
      "git init -q --bare src.git\ngit clone -q {{url}} {{dir}} dst 2>/dev/null || true";
    const values = { url: "--upload-pack=touch pwned;:", dir: "file://$PWD/src.git" };
    const hostile = run(script.replace("{{dir}}", '"file://$PWD/src.git"'), values);
    expect(hostile.code).toBe(2);
    expect(hostile.pwned).toBe(false);
    expect(hostile.err).toContain("git would read it as an option");
  });

  it.each([
    ["tar", "tar -cf out.tar --checkpoint=1 {{v}} f", "--checkpoint-action=exec=touch pwned"],
    ["rsync", "rsync {{v}} f g", "-e touch pwned"],
    ["curl", "curl -s {{v}}", "-K pwned"],
    ["wget", "wget -q {{v}}", "-e use_proxy=on"],
    ["a value after the name, in a pipe", "true | xargs ls {{v}}", "--version"],
    ["a word that starts with the value", 'ls "{{v}}.txt"', "--help"],
  ])("%s: refused before anything runs", (_name, script, v) => {
    const r = run(script, { v });
    expect(r.code).toBe(2);
    expect(r.pwned).toBe(false);
    expect(r.err).toContain("would read it as an option");
  });

  it("-- before the value, a plain number, --opt={{v}} and echo or printf's data are untouched", () => {
    const dashes = run('ls -- "{{v}}" 2>/dev/null || true', { v: "--help" });
    expect(dashes.code, dashes.err).toBe(0);
    expect(dashes.out).toBe("");
    const negative = run("printf '%s\\n' 1 2 3 | head {{n}}", { n: "-2" });
    expect(negative.out).toBe("1\n2\n");
    expect(run("printf '%s\\n' 1 2 3 | head -n {{n}}", { n: "-1.5" }).code).not.toBe(2);
    const data = run('echo "{{v}}"; printf "%s\\n" "{{v}}"; x="{{v}}"; echo "$x"', {
      v: "--- a/file",
    });
    expect(data.out).toBe("--- a/file\n--- a/file\n--- a/file\n");
    expect(run("grep --regexp={{v}} f", { v: "-x" }).code).toBe(1);
  });

  it("a value as the command's name is refused when the script is converted", () => {
    expect(shellText("{{tool}} --version", "bash").refused).toEqual([
      "{{tool}} names the command to run: a value that chooses the program is code; name the program in the script and pass the value as its argument",
    ]);
    expect(shellText('if true; then "{{t}}" x; fi', "bash").refused).toHaveLength(1);
    expect(shellText("X=1 {{t}}", "bash").refused).toHaveLength(1);
    expect(shellText('npm run "{{t}}"', "bash").refused).toEqual([]);
  });
});
