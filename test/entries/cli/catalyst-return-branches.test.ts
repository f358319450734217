import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { validateSource } from "../../../src/core/rules/validate.js";
import { cliIn } from "../../helpers/cli.js";
import { makeDir } from "../../helpers/git-repo.js";

const dirs: string[] = [];
afterEach(() => {
  vi.unstubAllEnvs();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

// The shape of Catalyst's own playbooks that end early: an if/else whose branches both return,
// one with a code and message, the other with `outputs: { success: true }`.
const PLAYBOOK = [
  "name: two-returns",
  "description: Both branches of an if/else return",
  "owner: Engineer",
  "inputs:",
  "  - string: mode",
  "    default: a",
  "steps:",
  "  - name: choose",
  "    if: \"${{ get('mode') == 'a' }}\"",
  "    then:",
  "      - return:",
  "          code: ModeA",
  '          message: "Mode A"',
  "    else:",
  "      - return:",
  "          outputs:",
  "            success: true",
  "  - name: after",
  '    ai-prompt: "Anything after."',
  "",
].join("\n");

describe("Catalyst: an if/else that returns in both branches", () => {
  it("validates: the else branch and the step after it are reachable, success is text", () => {
    const report = validateSource("two-returns.yaml", PLAYBOOK);
    expect(report.dialect).toBe("catalyst");
    expect(report.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    expect(report.diagnostics.filter((d) => d.rule === "unreachable")).toEqual([]);
    expect(report.playbook?.outputs).toEqual({ success: "true" });
  });

  it.each([
    ["a", ["return-1"], "Mode A"],
    ["b", ["return-1", "return-2"], undefined],
  ])(
    "mode=%s runs the branch it names (a skipped return does not end the run)",
    async (mode, path, said) => {
      const dir = makeDir("pb-catalyst-return-");
      dirs.push(dir);
      const file = join(dir, "two-returns.yaml");
      writeFileSync(file, PLAYBOOK);
      vi.stubEnv("GITHUB_TOKEN", "");
      const r = await cliIn(
        ["run", file, "--mode", "autonomous", "--scratch", `mode=${mode}`],
        dir,
      );
      expect(r.code, r.out + r.err).toBe(0);
      const state = /State: (\S+\.json)/.exec(r.out)?.[1] as string;
      const { run } = JSON.parse(readFileSync(state, "utf8")) as {
        run: {
          stack: { results?: Record<string, { status: string }> }[];
          outputs?: Record<string, string>;
        };
      };
      const results = run.stack[0]?.results ?? {};
      const ran = Object.keys(results).filter((id) => results[id]?.status !== "skipped");
      expect(Object.keys(results)).toEqual(path);
      expect(ran).toEqual([path[path.length - 1]]);
      if (said) expect(r.out).toContain(said);
      else expect(run.outputs).toEqual({ success: "true" });
    },
  );
});
