import { MemoryCoordination } from "../../../src/adapters/coordination/memory.js";
import { repositoryStateKey } from "../../../src/runtime/state-codec.js";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { IssueController } from "../../../src/runtime/run-service/controller.js";
import { readStatusComment } from "../../../src/runtime/run-service/status-comment.js";
import { main } from "../../../src/entries/cli/main.js";
import { parseScript, ScriptError, simulate } from "../../../src/entries/cli/simulate.js";
import type { PlaybookBundle } from "../../../src/core/steps/types.js";
import { MemoryGitHub } from "../../../src/adapters/memory/github.js";
import { validateSource } from "../../../src/core/rules/validate.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const update = process.env.UPDATE_GOLDEN === "1";

async function cli(args: string[]) {
  let out = "";
  let err = "";
  const code = await main(args, { out: (t) => (out += t), err: (t) => (err += t), cwd: root });
  return { code, out, err };
}

describe("playbook-bot simulate", () => {
  for (const [playbook, script] of [
    ["dependency-bump", "examples/simulations/dependency-bump.events.yaml"],
    ["service-triage", "examples/simulations/service-triage.events.yaml"],
    ["hello-world", "examples/simulations/systematise.events.yaml"],
  ] as const) {
    it(`prints the thread of ${playbook} as the golden transcript`, async () => {
      const r = await cli(["simulate", playbook, "--events", script]);
      expect(r.err).toBe("");
      expect(r.code).toBe(0);
      const golden = join(
        root,
        "test",
        "golden",
        `simulate-${basename(script, ".events.yaml")}.txt`,
      );
      if (update) writeFileSync(golden, r.out);
      expect(existsSync(golden)).toBe(true);
      expect(r.out).toBe(readFileSync(golden, "utf8"));
    });
  }

  it("shows refusals with their reasons and the reactions on each command", async () => {
    const r = await cli([
      "simulate",
      "dependency-bump",
      "--events",
      "examples/simulations/dependency-bump.events.yaml",
    ]);
    expect(r.out).toContain("💬 @bob  [👀 👎]\n   /approve\n");
    expect(r.out).toContain(
      "👎 @bob may not approve this step; approval is for people with maintain access or more",
    );
    expect(r.out).toContain("👎 @alice started this run and cannot approve it");
    // What keeps a mention inert on GitHub is left out of text people copy from a terminal.
    expect(r.out).not.toContain("\u200b");
    expect(r.out).toContain("👎 `/aprove` is not a command — did you mean `/approve`?");
    expect(r.out).toContain("💬 @carol  [👀 🚀]\n   /approve\n");
    expect(r.out).toContain("#2 chore(deps): bump lodash (playbook/bump-lodash → main): merged");
    expect(r.out).toContain("### ✅ Bump a dependency");
  });

  it("reports a bad events file with its position", async () => {
    expect(() => parseScript("e.yaml", "events:\n  - comment: hi\n    merge: true\n")).toThrow(
      /^e\.yaml:2:5: events\[0\]: an event has exactly one of/,
    );
    expect(() => parseScript("e.yaml", "events:\n  - wait: soon\n")).toThrow(
      /^e\.yaml:2:11: events\[0\]\.wait: must match pattern/,
    );
    expect(() => parseScript("e.yaml", "events: [\n")).toThrow(ScriptError);
    const r = await cli(["simulate", "dependency-bump", "--events", "nope.yaml"]);
    expect(r.code).toBe(2);
    expect(r.err).toContain("nope.yaml: no such file");
  });
});

function bundle(text: string): PlaybookBundle {
  const r = validateSource("p.yaml", text);
  if (!r.playbook) throw new Error(JSON.stringify(r.diagnostics));
  return { playbook: r.playbook, hash: `h-${r.playbook.id}`, files: {} };
}

const TWO_APPROVALS = bundle(`apiVersion: playbook-bot/v1
id: release
description: Two people approve a release.
steps:
  - id: ok
    type: checkpoint
    description: Two approvals.
    message: Release?
    approvers: { permission: write, count: 2 }
  - id: note
    type: comment
    description: Say it.
    body: Released.
`);

describe("the issue controller in simulation", () => {
  it("withdraws a vote whose comment was edited while the step still waits", async () => {
    const transcript = await simulate(new Map([["release", TWO_APPROVALS]]), {
      users: { a: "write", b: "write", c: "write" },
      events: [
        { comment: "/run release", by: "c" },
        { comment: "/approve", by: "a", id: "vote-a" },
        { edit: "vote-a", body: "never mind" },
        { comment: "/approve", by: "b" },
      ],
    });
    expect(transcript).toContain("**Status:** waiting");
    expect(transcript).not.toContain("Released.");
    expect(transcript).toContain("vote withdrawn");
  });

  it("ignores a state block a person posts and freezes a run whose status comment was edited", async () => {
    let now = Date.parse("2026-02-01T10:00:00Z");
    const gh = new MemoryGitHub("app[bot]", () => new Date((now += 1000)));
    gh.permissions.set("a", "write");
    gh.permissions.set("b", "write");
    const issue = gh.openIssue("t", "", "a");
    const controller = new IssueController({
      memory: new MemoryCoordination(),
      port: gh,
      catalog: {
        get: (id) => (id === "release" ? TWO_APPROVALS : undefined),
        all: () => [TWO_APPROVALS],
      },
      stateKey: repositoryStateKey("s3cret", 0, 0),
      clock: () => new Date(now),
      issue: { number: issue.number, title: "t", url: "u", author: "a" },
      repo: { owner: "o", name: "r", default_branch: "main" },
      inProcess: true,
    });
    await controller.onComment(gh.postAs(issue.number, "a", "/run release"), "d1");
    const [status] = await controller.runs();
    expect(status?.run.status).toBe("waiting");
    const body = (await gh.comment(issue.number, status?.commentId ?? ""))?.body ?? "";
    // A copy of the block in a person's comment is not a run.
    gh.postAs(issue.number, "b", body);
    expect(await controller.runs()).toHaveLength(1);
    // An edited block no longer verifies: the run freezes with a notice, once.
    gh.editAs(
      status?.commentId ?? "",
      body.replace(/state (\S+) ([A-Za-z0-9_-]{10})/, "state $1 x$2"),
    );
    expect(
      readStatusComment((await gh.comment(issue.number, status?.commentId ?? ""))?.body ?? "", {
        key: repositoryStateKey("s3cret", 0, 0),
        issue: issue.number,
        comment: status?.commentId ?? "",
      }),
    ).toMatchObject({ ok: false, reason: "tampered" });
    await controller.onComment(gh.postAs(issue.number, "b", "/approve"), "d2");
    await controller.onComment(gh.postAs(issue.number, "b", "/status"), "d3");
    const notices = (await gh.comments(issue.number)).filter((c) => c.body.includes("is frozen"));
    expect(notices).toHaveLength(1);
    expect(notices[0]?.body).toContain("the state block's signature does not match");
  });
});
