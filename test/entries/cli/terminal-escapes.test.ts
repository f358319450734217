import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { main } from "../../../src/entries/cli/main.js";
import { workflowCommands } from "../../helpers/workflow-commands.js";

/**
 * `playbook-bot run`: a comment step's body (and the line that describes an issue or pull request
 * step) is printed to the terminal. Values in it — an input, an issue's title or body
 * with `--issue`, a script's, tool's or model's output — carry terminal sequences (OSC 52 writes
 * the clipboard, OSC 0 the title, CSI clears the screen) and, on a line of their own, workflow
 * commands when the CLI runs in GitHub Actions. None of it may reach the terminal or the runner
 * live: control characters are shown as escapes and a line's leading `::` is escaped.
 */
const dirs: string[] = [];
afterEach(() => {
  vi.unstubAllEnvs();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const HOSTILE = "x\u001b]52;c;cHduZWQ=\u0007\u001b[2J\n::add-mask::y";

const PLAYBOOK = `apiVersion: playbook-bot/v1
id: echo
name: Echo
description: Echo a value
inputs:
  v:
    type: string
    default: ${JSON.stringify(HOSTILE)}
steps:
  - id: say
    name: Say
    type: comment
    body: "value: {{ inputs.v }}"
  - id: open
    name: Open
    type: issue
    title: "about {{ inputs.v }}"
    body: "b"
  - id: done
    name: Done
    type: end
`;

describe("`playbook-bot run` prints values inert", () => {
  it("prints no escape character and no workflow command", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pb-esc-"));
    dirs.push(dir);
    const file = join(dir, "echo.yaml");
    writeFileSync(file, PLAYBOOK);
    vi.stubEnv("GITHUB_TOKEN", "");
    let out = "";
    const code = await main(["run", file, "--mode", "autonomous", "--scratch"], {
      out: (t) => void (out += t),
      err: (t) => void (out += t),
      cwd: dir,
    });
    const scratch = /Scratch repository: (.+)\n/.exec(out)?.[1];
    if (scratch) dirs.push(scratch);
    expect(code, out).toBe(0);
    expect(out).not.toContain("\u001b");
    expect(out).not.toContain("\u0007");
    expect(workflowCommands(out).map((c) => c.line)).toEqual([]);
  });
});
