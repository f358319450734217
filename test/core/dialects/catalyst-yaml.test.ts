import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { validateSource } from "../../../src/core/rules/validate.js";
import { main } from "../../../src/entries/cli/main.js";
import {
  getEnvName,
  getNames,
  nodeProgram,
  shellText,
} from "../../../src/core/dialects/catalyst/scripts.js";
import { FIXED_NOW } from "../../helpers/git-repo.js";

const ROOT = join(import.meta.dirname, "../../..");
const HEAD = "test/fixtures/dialects/catalyst/head/src/resources/playbooks";
const Y1 = "test/fixtures/dialects/catalyst/2025-12-6ceab93/src/playbooks";
const read = (file: string) => readFileSync(join(ROOT, file), "utf8");
const load = (file: string) => validateSource(file, read(file));
const errorsOf = (r: ReturnType<typeof validateSource>) =>
  r.diagnostics.filter((d) => d.severity === "error");
type Step = Record<string, unknown>;
const stepsOf = (r: ReturnType<typeof validateSource>) =>
  (r.playbook?.steps ?? []) as unknown as Step[];

describe("Catalyst's bundled update-pull-request loads and converts as written", () => {
  const file = `${HEAD}/update-pull-request.yaml`;
  const r = load(file);
  const steps = stepsOf(r);
  const byId = (id: string) => steps.find((s) => s.id === id) as Step;

  it("validates with no error", () => {
    expect(errorsOf(r)).toEqual([]);
  });

  it("reads the pull request and its review threads with the built-in GitHub tools", () => {
    expect(byId("pr-info")).toMatchObject({
      type: "investigate",
      suggested_calls: [
        {
          tool: "github/pull_request_get",
          args: { number: "{{ inputs.pr-number }}" },
          run: "auto",
          // `{{pr-info.head.ref}}` reads GitHub's head.ref, which the tool gives as `head`.
          outputs: { value: "", r_head_ref: "head" },
        },
      ],
    });
    expect(byId("branch-check")).toMatchObject({
      type: "branch",
      name: "{{ steps.pr-info.outputs.r_head_ref }}",
    });
    expect(byId("threads")).toMatchObject({
      suggested_calls: [
        {
          tool: "github/review_threads",
          args: {
            number: "{{ inputs.pr-number }}",
            marker: "[Catalyst][{{ inputs.ai-platform }}]",
          },
        },
      ],
    });
  });

  it("reads xe:// context files just before the AI step, and gives the AI its context and answer format", () => {
    const ai = byId("feedback-analysis");
    const order = steps.map((s) => s.id);
    expect(order.indexOf("read-xe-product")).toBe(order.indexOf("feedback-analysis") - 2);
    expect(byId("read-xe-product")).toMatchObject({
      suggested_calls: [
        {
          tool: "github/file_read",
          args: {
            path: ".xe/product",
            extensions: [".md", ".json"],
            missing_ok: true,
            ref: "{{ steps.branch-check.outputs.name }}",
          },
        },
      ],
    });
    expect(ai.prompt).toContain(
      "### product_context\n\n{{ steps.read-xe-product.outputs.content }}",
    );
    expect(ai.prompt).toContain("### threads\n\n{{ steps.threads.outputs.value }}");
    expect(ai.prompt).toContain("## Answer\n\nReturn a JSON object with:");
  });

  it("answers each thread in its review thread, once per item of the AI's plan, one at a time", () => {
    const reply = steps.find((s) => s.type === "comment" && s.reply_to !== undefined) as Step;
    expect(reply).toMatchObject({
      for_each: "{{ steps.feedback-analysis.outputs.text.threads }}",
      issue: "{{ inputs.pr-number }}",
      reply_to: "{{ item.commentId }}",
    });
    expect(reply.body).toContain("{{ item.response }}");
    expect(r.playbook?.limits).toMatchObject({ max_parallel: 1 });
    expect(byId("summary-comment")).toMatchObject({
      type: "comment",
      issue: "{{ inputs.pr-number }}",
    });
  });

  it("returns the outputs its return names, read from the final threads", () => {
    expect(r.playbook?.outputs).toMatchObject({
      threadsProcessed: "{{ steps.final-threads.outputs.r_totalCount }}",
      threadsRemaining: "{{ steps.final-threads.outputs.r_remainingCount }}",
    });
    expect(byId("final-threads")).toMatchObject({
      suggested_calls: [
        { outputs: { r_totalCount: "totalCount", r_remainingCount: "remainingCount" } },
      ],
    });
  });

  it("says which triggers do not start it, at each trigger", () => {
    const drifts = r.diagnostics.filter(
      (d) => d.rule === "dialect-drift" && d.message.startsWith("the trigger"),
    );
    expect(drifts.map((d) => d.line)).toEqual([9, 11, 13, 15, 19]);
  });

  it("simulate runs it to its end: replies in the review threads and a summary on the pull request", async () => {
    let out = "";
    const code = await main(
      [
        "simulate",
        file,
        "--events",
        "test/fixtures/dialect-simulations/catalyst-update-pull-request.events.yaml",
      ],
      {
        out: (t) => void (out += t),
        err: (t) => void (out += t),
        cwd: ROOT,
        clock: () => new Date(FIXED_NOW),
      },
    );
    expect(code, out).toBe(0);
    expect(out).toMatch(/Run \S+ completed\./);
    expect(out).toContain("PR updated. 2 comment threads responded to.");
    expect(out).toContain("replied to review comment 101 on #12");
    expect(out).toContain("replied to review comment 102 on #12");
  });
});

describe("Catalyst's first YAML generation (start-blueprint) loads as written", () => {
  const r = load(`${Y1}/start-blueprint.yaml`);
  const steps = stepsOf(r);

  it("validates: child playbooks that are not installed are offered, as Catalyst finds them at run time", async () => {
    expect(errorsOf(r)).toEqual([]);
    let out = "";
    const code = await main(["validate", `${Y1}/start-blueprint.yaml`], {
      out: (t) => void (out += t),
      err: (t) => void (out += t),
      cwd: ROOT,
    });
    expect(code, out).toBe(0);
    for (const line of [69, 80, 91])
      expect(out).toMatch(
        new RegExp(`start-blueprint\\.yaml:${line}:9: warning: .*\\[set-unresolved-playbook\\]`),
      );
  });

  it("turns `if-not: get('xe://…')` into a read of the file and a test of its content", () => {
    const read = steps[0] as Step;
    expect(read).toMatchObject({
      id: "read-xe-rollouts-rollout-blueprint",
      suggested_calls: [{ args: { path: ".xe/rollouts/rollout-blueprint" } }],
    });
    // The run's own branch comes before the write (the playbook opens none).
    expect(steps[1]).toMatchObject({ id: "run-branch", type: "branch", if_exists: "new-name" });
    expect(steps[2]).toMatchObject({
      id: "init-blueprint-rollout",
      if: '${{ (!(steps["read-xe-rollouts-rollout-blueprint"].outputs.content) || ["", "false", "null", "undefined"].includes((steps["read-xe-rollouts-rollout-blueprint"].outputs.content).trim().toLowerCase())) }}',
    });
  });

  it("writes the file as a commit on the run's own branch, never the default branch, with its front matter and replacements, today's date as run.date", () => {
    const write = steps[2] as Step & { files: { path: string; content: string }[] };
    expect(write).toMatchObject({ type: "commit", branch: "{{ steps.run-branch.outputs.name }}" });
    expect(write.files[0]?.path).toBe(".xe/rollouts/rollout-blueprint.md");
    expect(write.files[0]?.content).toMatch(
      /^---\nfeatures:\n {2}- blueprint\nstatus: in-progress\ncreated: '\{\{ run\.date \}\}'\n---\ncatalyst:\/\/templates\/specs\/rollout$/,
    );
    // `{{init-blueprint-rollout.content}}` is the text written, known when converting.
    const ai = steps[3] as Step;
    expect(ai.prompt).toContain("### rollout\n\n---\nfeatures:");
    const date = r.diagnostics.find((d) => d.message.startsWith("today's date"));
    expect(date).toMatchObject({ line: 34, column: 21, severity: "warning" });
  });

  it("commits to the branch of its git-branch step, and waits for a child's pull request at a checkpoint", () => {
    const commit = steps.find((s) => s.type === "commit" && s.paths !== undefined) as Step;
    expect(commit.branch).toBe("{{ steps.blueprint-branch.outputs.name }}");
    expect(steps.find((s) => s.id === "blueprint-branch")).toMatchObject({ if_exists: "fail" });
    const wait = steps.find((s) => s.type === "checkpoint") as Step;
    expect(wait.message).toContain("{{ steps.research-phase.outputs.prNumber }}");
  });
});

describe("Catalyst's install-ai-providers: every part converts", () => {
  const r = load(`${HEAD}/install-ai-providers.yaml`);
  const steps = stepsOf(r);

  it("reads a step of the same loop for the item at hand, and keeps the JavaScript condition", () => {
    expect(errorsOf(r)).toEqual([]);
    expect(steps.find((s) => s.id === "tracked")).toMatchObject({
      env: { CATALYST_1: "{{ steps.legacy-pattern.outputs.stdout[item_index] }}" },
    });
    expect(steps.find((s) => s.id === "bash-9")).toMatchObject({
      if: "${{ (steps.tracked.outputs.stdout[item_index].trim().length > 0) }}",
      for_each: "{{ steps.providers-for-migrate.outputs.stdout }}",
    });
  });

  it("inlines var values, keeping Catalyst package paths as text with a warning", () => {
    expect(steps.find((s) => s.id === "command-files")).toMatchObject({
      suggested_calls: [
        {
          tool: "github/file_list",
          args: { path: "catalyst://ai-config/commands", pattern: "*.md" },
          outputs: { value: "names" },
        },
      ],
    });
    const warned = r.diagnostics.filter((d) => d.message.includes("Catalyst's own package"));
    expect(warned.map((d) => d.line)).toEqual([17, 19]);
  });

  it("runs the JavaScript body as a Node.js script whose get() reads its environment", () => {
    const script = steps.find((s) => s.id === "generate-result") as Step;
    expect(script).toMatchObject({
      type: "script",
      shell: "node",
      env: {
        CATALYST_GET_PROJECT_ROOT: "{{ inputs.project-root }}",
        CATALYST_GET_TEMPLATES_DIR: "catalyst://ai-config/commands",
        CATALYST_GET_COMMAND_FILES: "{{ steps.command-files.outputs.value }}",
      },
    });
    expect(script.run).toContain("const providers = Object.values(get('provider-catalog'));");
  });

  it("loops a single-step body over a script's JSON result, reading the item's fields", () => {
    const edit = steps.find((s) => s.type === "commit" && s.for_each !== undefined) as Step & {
      files: { path: string; content: string }[];
    };
    expect(edit.for_each).toBe("{{ steps.generate-result.outputs.stdout.gitignores }}");
    expect(edit.files[0]).toEqual({
      path: "{{ item.path }}",
      content: "# Catalyst commands\n{{ item.patterns }}\n",
    });
  });
});

describe("Catalyst's catch and finally", () => {
  const PB = `name: guarded
description: Guarded.
owner: Engineer
steps:
  - name: build
    checkpoint: Build?
  - return:
      code: Built
catch:
  - code: GH-NOT-FOUND
    steps:
      - display: Not found.
  - code: Empty
    steps: []
finally:
  - name: tidy
    display: Tidy up.
`;
  const r = validateSource("guarded.yaml", PB);
  const steps = stepsOf(r);

  it("send each error to its catch block, then finally, and end failed; success runs finally, then returns", () => {
    expect(errorsOf(r)).toEqual([]);
    expect(steps.map((s) => [s.id, s.type])).toEqual([
      ["build", "checkpoint"],
      ["tidy", "comment"],
      ["return-3", "end"],
      ["catch-GH-NOT-FOUND", "comment"],
      ["catch-Empty", "comment"],
      ["finally-after-failure", "comment"],
      ["failed", "end"],
    ]);
    expect(steps[0]?.on_error).toEqual({
      default: "goto:finally-after-failure",
      "GH-NOT-FOUND": "goto:catch-GH-NOT-FOUND",
      Empty: "goto:catch-Empty",
    });
    expect(steps[3]?.next).toBe("finally-after-failure");
    expect(steps[4]).toMatchObject({ body: "Error Empty caught.", next: "finally-after-failure" });
    expect(steps[6]).toMatchObject({ status: "failure" });
  });
});

describe("Catalyst script helpers", () => {
  it("finds get() names and names their variables", () => {
    expect(getNames("get('a-b') + get(\"c\") + get('a-b') + target('x')")).toEqual(["a-b", "c"]);
    expect(getEnvName("project-root")).toBe("CATALYST_GET_PROJECT_ROOT");
  });

  it("passes a shell script's values as environment variables, never spliced into its text", () => {
    expect(shellText('cd -- "{{root}}" && git rm -- {{files}} {{root}}', "bash")).toEqual({
      text: 'cd -- "${CATALYST_1}" && git rm -- "${CATALYST_2}" "${CATALYST_1}"',
      refused: [],
      refs: [
        { env: "CATALYST_1", expr: "root" },
        { env: "CATALYST_2", expr: "files" },
      ],
    });
    expect(shellText("Write-Output {{x}}", "powershell").text).toBe("Write-Output $env:CATALYST_1");
  });

  it("a JavaScript body runs with get(), fs and path, and prints its result as JSON", () => {
    const program = nodeProgram(
      "console.log('noise'); const list = get('items'); return { n: list.length, sep: path.sep, root: get('root'), exists: fs.existsSync('/') };",
    );
    const out = execFileSync(process.execPath, ["-e", program], {
      env: { CATALYST_GET_ITEMS: '["a","b"]', CATALYST_GET_ROOT: "/tmp" },
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    });
    expect(JSON.parse(out)).toEqual({ n: 2, sep: "/", root: "/tmp", exists: true });
    expect(() =>
      execFileSync(process.execPath, ["-e", nodeProgram("throw new Error('boom');")], {
        stdio: "ignore",
      }),
    ).toThrow();
  });
});
