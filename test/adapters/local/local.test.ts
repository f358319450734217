import { afterEach, describe, expect, it } from "vitest";
import { MockAiAdapter } from "../../../src/runtime/ai.js";
import type { Effect } from "../../../src/core/engine/events.js";
import {
  describeEffect,
  LocalEffects,
  printedOutputs,
  type LocalEffectsOptions,
} from "../../../src/adapters/local/effects.js";
import type { EffectPerformer } from "../../../src/runtime/effects.js";
import { branches, cleanup, git, makeDir, makeRepo, write } from "../../helpers/git-repo.js";
import { sampleRun } from "../../runtime/state/fixtures.js";

afterEach(cleanup);

function eff(kind: Effect["kind"], params: Record<string, unknown>): Effect {
  return { key: `run/${kind}/1`, kind, step: kind, params } as Effect;
}

const ALL: [Effect, string, Record<string, unknown>][] = [
  [
    eff("branch", { name: "b" }),
    "create branch b",
    { name: "b", sha: "(not created)", created: false },
  ],
  [eff("branch", { name: "b", from: "main" }), "create branch b from main", { name: "b" }],
  [
    eff("commit", {
      branch: "b",
      message: "feat: x\n\nbody",
      files: [{ path: "a.md", content: "" }],
      paths: ["src/**"],
    }),
    'commit "feat: x" to b (a.md, src/**)',
    { sha: "(not committed)", branch: "b" },
  ],
  [eff("commit", { branch: "b", message: "m" }), 'commit "m" to b ()', { branch: "b" }],
  [
    eff("pull_request", { title: "T", head: "h" }),
    'open pull request "T" from h',
    { number: 0, url: "(not opened)", head: "h", merged: false },
  ],
  [
    eff("pull_request", { title: "T", head: "h", base: "main", draft: true }),
    'open pull request "T" from h into main (draft)',
    { head: "h" },
  ],
  [eff("issue", { title: "I" }), 'open issue "I"', { number: 0, url: "(not opened)" }],
  [
    eff("label", { add: ["a", "b"], remove: [] }),
    "label the issue: +[a, b] -[]",
    { labels: ["a", "b"] },
  ],
  [
    eff("label", { issue: 7, add: [], remove: ["x"] }),
    "label the issue #7: +[] -[x]",
    { labels: [] },
  ],
  [eff("close", { reason: "completed" }), "close the issue as completed", { state: "closed" }],
  [eff("close", { issue: 3, reason: "not_planned" }), "close the issue #3 as not_planned", {}],
  [
    eff("dispatch", { workflow: "ci.yml", inputs: { a: 1 } }),
    'run workflow ci.yml with {"a":1}',
    { url: "(not dispatched)" },
  ],
  [eff("dispatch", { workflow: "ci.yml", ref: "main" }), "run workflow ci.yml on main with {}", {}],
  [eff("comment", { body: "first\nsecond" }), "comment: first", { id: "0", url: "(not posted)" }],
  [
    eff("ai", { scope: "read-only", prompt: `${"p".repeat(100)}\nmore` }),
    `ask the AI adapter (read-only): ${"p".repeat(80)}`,
    { text: "(not asked)" },
  ],
  [eff("start_playbook", { playbook: "other" }), "start playbook other", {}],
];

describe("describeEffect and printedOutputs", () => {
  it.each(ALL.map(([e, text, out]) => [e.kind, e, text, out] as const))(
    "%s",
    (_kind, effect, text, outputs) => {
      expect(describeEffect(effect)).toBe(text);
      expect(printedOutputs(effect)).toMatchObject(outputs);
    },
  );

  it("gives start_playbook no outputs", () => {
    expect(printedOutputs(eff("start_playbook", { playbook: "x" }))).toEqual({});
  });

  it("prints no labels when a label effect adds none", () => {
    expect(printedOutputs(eff("label", { remove: ["x"] }))).toEqual({ labels: [] });
  });
});

function effects(over: Partial<LocalEffectsOptions> = {}) {
  const logs: string[] = [];
  const e = new LocalEffects({
    repo: makeRepo(),
    dryRun: false,
    ai: new MockAiAdapter(),
    log: (l) => logs.push(l),
    ...over,
  });
  return { e, logs };
}

const KINDS = ALL.map(([e]) => e).filter((e, i, a) => a.findIndex((x) => x.kind === e.kind) === i);

describe("LocalEffects.printsOnly", () => {
  it("prints every effect in a dry run", () => {
    const { e } = effects({ dryRun: true });
    for (const k of KINDS) expect(e.printsOnly(k)).toBe(true);
  });

  it("without GitHub, performs git, ai and comments and prints the rest", () => {
    const { e } = effects();
    const performed = KINDS.filter((k) => !e.printsOnly(k)).map((k) => k.kind);
    expect(performed.sort()).toEqual(["ai", "branch", "comment", "commit"]);
  });

  it("with GitHub, performs everything", () => {
    const github: EffectPerformer = { perform: async () => ({ ok: true, outputs: {} }) };
    const { e } = effects({ github });
    for (const k of KINDS) expect(e.printsOnly(k)).toBe(false);
  });
});

describe("LocalEffects.perform", () => {
  it("prints in a dry run and creates nothing", async () => {
    const repo = makeRepo();
    const { e, logs } = effects({ repo, dryRun: true });
    const r = await e.perform(eff("branch", { name: "x" }), sampleRun());
    expect(r).toEqual({ ok: true, outputs: printedOutputs(eff("branch", { name: "x" })) });
    expect(logs).toEqual(["dry run: would create branch x"]);
    expect(branches(repo)).toEqual(["main"]);
  });

  it("prints GitHub work when there is no token", async () => {
    const { e, logs } = effects();
    const r = await e.perform(eff("issue", { title: "Hi" }), sampleRun());
    expect(r).toEqual({ ok: true, outputs: { number: 0, url: "(not opened)" } });
    expect(logs).toEqual(['no GitHub token: would open issue "Hi"']);
  });

  it("hands GitHub work to the GitHub performer when there is one", async () => {
    const calls: Effect[] = [];
    const github: EffectPerformer = {
      perform: async (effect) => {
        calls.push(effect);
        return { ok: true, outputs: { number: 12 } };
      },
    };
    const { e } = effects({ github });
    const issue = eff("issue", { title: "Hi" });
    expect(await e.perform(issue, sampleRun())).toEqual({ ok: true, outputs: { number: 12 } });
    expect(calls).toEqual([issue]);
  });

  it("creates branches and commits with real git", async () => {
    const repo = makeRepo();
    const { e } = effects({ repo });
    expect(await e.perform(eff("branch", { name: "w" }), sampleRun())).toMatchObject({
      ok: true,
      outputs: { created: true },
    });
    const r = await e.perform(
      eff("commit", { branch: "w", message: "m", files: [{ path: "a.txt", content: "A" }] }),
      sampleRun(),
    );
    expect(r).toMatchObject({ ok: true, outputs: { branch: "w", created: true } });
    expect(git(repo, "show", "w:a.txt")).toBe("A");
  });

  it("commits work-tree files matched by paths, sorted, dot-folders included, never run state", async () => {
    const repo = makeRepo();
    write(repo, "notes/b.md", "B\n");
    write(repo, "notes/a.md", "A\n");
    write(repo, "notes/.hidden", "H\n");
    write(repo, ".playbook-runs/run-x.json", "{}");
    git(repo, "branch", "w");
    const { e } = effects({ repo });
    const r = await e.perform(
      eff("commit", { branch: "w", message: "m", paths: ["notes/**", ".playbook-runs/**"] }),
      sampleRun(),
    );
    expect(r.ok).toBe(true);
    expect(git(repo, "ls-tree", "-r", "--name-only", "w").split("\n")).toEqual([
      "README.md",
      "notes/.hidden",
      "notes/a.md",
      "notes/b.md",
    ]);
    expect(git(repo, "show", "w:notes/b.md")).toBe("B");
  });

  it("commits files that lie only under dot-folders (.xe/…, .github/…), never .git/", async () => {
    const repo = makeRepo();
    write(repo, ".xe/features/login/spec.md", "# Login\n");
    write(repo, ".github/workflows/ci.yml", "on: push\n");
    git(repo, "branch", "w");
    const { e } = effects({ repo });
    const r = await e.perform(
      eff("commit", {
        branch: "w",
        message: "m",
        paths: [".xe/**", ".github/**/*.yml", "**/HEAD"],
      }),
      sampleRun(),
    );
    expect(r.ok).toBe(true);
    expect(git(repo, "ls-tree", "-r", "--name-only", "w").split("\n")).toEqual([
      ".github/workflows/ci.yml",
      ".xe/features/login/spec.md",
      "README.md",
    ]);
  });

  it("refuses git effects outside a repository", async () => {
    const dir = makeDir();
    const { e } = effects({ repo: dir });
    for (const effect of [
      eff("branch", { name: "x" }),
      eff("commit", { branch: "x", message: "m" }),
    ]) {
      const r = await e.perform(effect, sampleRun());
      expect(r).toMatchObject({
        ok: false,
        error: { code: "GIT-FAILED", message: `${dir} is not a git repository` },
      });
    }
  });

  it("prints comments to the log", async () => {
    const { e, logs } = effects();
    const r = await e.perform(eff("comment", { body: "Hello\nthere" }), sampleRun());
    expect(r).toEqual({ ok: true, outputs: { id: "run/comment/1", url: "(local thread)" } });
    expect(logs).toEqual(["comment on the thread:\nHello\nthere"]);
  });

  it("refuses a read-only ai step whose tool the host describes as writing, and streams messages", async () => {
    const ai = new MockAiAdapter();
    const seen: string[] = [];
    const { e } = effects({
      ai,
      tools: {
        call: async () => ({ ok: true, result: null }),
        describe: async (name) => ({ readOnly: name !== "ops/rollout" }),
      },
      aiMessage: (step, m) => void seen.push(`${step}:${m.type}`),
    });
    const refused = await e.perform(
      eff("ai", { prompt: "look", tools: ["ops/status", "ops/rollout"] }),
      sampleRun(),
    );
    expect(refused).toMatchObject({
      ok: false,
      error: {
        code: "PB-AI-TOOL-REFUSED",
        message:
          "the step's scope is read-only, but it offers the model ops/rollout, which may change things (it is not marked read-only here)",
      },
    });
    expect(ai.calls).toEqual([]);
    const ok = await e.perform(eff("ai", { prompt: "look", tools: ["ops/status"] }), sampleRun());
    expect(ok).toMatchObject({ ok: true });
    expect(seen).toEqual(["ai:text", "ai:done"]);
  });

  it("asks the AI adapter with the step's tools, scope and expected findings", async () => {
    const ai = new MockAiAdapter({
      replies: [{ when: "disk", text: "full", findings: { disk_full: true, other: 1 } }],
    });
    const repo = makeRepo();
    const { e } = effects({ repo, ai });
    const r = await e.perform(
      eff("ai", {
        prompt: "check the disk",
        tools: ["k8s/get_logs"],
        scope: "write",
        expected_findings: ["disk_full"],
      }),
      sampleRun(),
    );
    expect(r).toEqual({ ok: true, outputs: { text: "full", "finding.disk_full": true } });
    expect(ai.calls).toEqual([
      {
        prompt: "check the disk",
        tools: ["k8s/get_logs"],
        options: { scope: "write", cwd: repo, expectedFindings: ["disk_full"] },
      },
    ]);
    await e.perform(eff("ai", { prompt: "hello" }), sampleRun());
    expect(ai.calls[1]).toEqual({
      prompt: "hello",
      tools: [],
      options: { scope: "read-only", cwd: repo, expectedFindings: [] },
    });
  });
});
