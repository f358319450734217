import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { main } from "../../../src/entries/cli/main.js";
import { runCase } from "../../../src/adapters/local/playbook-tests.js";
import type { PlaybookBundle } from "../../../src/core/steps/types.js";
import type { TestCase } from "../../../src/core/format/types.js";
import { validateSource } from "../../../src/core/rules/validate.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

function bundle(text: string): PlaybookBundle {
  const r = validateSource("p.yaml", text);
  expect(r.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
  if (!r.playbook) throw new Error("invalid");
  return { playbook: r.playbook, hash: `h-${r.playbook.id}`, files: {} };
}

const DEPLOY = bundle(`apiVersion: playbook-bot/v1
id: deploy
description: Deploy after approval.
inputs:
  service: { type: string, required: true, from: labels.service, description: Service. }
steps:
  - id: ok
    type: checkpoint
    description: Approve.
    message: Deploy {{ inputs.service }} ({{ alert.severity }})?
    approvers: { permission: maintain }
  - id: pr
    type: pull_request
    description: Open.
    head: deploy/{{ inputs.service }}
    title: Deploy {{ inputs.service }} for {{ issue.title }}
    wait: merged
    on_error: { GH-RATE-LIMITED: retry:2, default: fail }
  - id: run
    type: dispatch
    description: Run the deploy.
    workflow: deploy.yml
  - id: notes
    type: investigate
    description: Check the deploy.
    expected_findings: [healthy]
  - id: done
    type: end
    description: Done.
    conclusion: deployed
outputs:
  pr: '{{ steps.pr.outputs.url }}'
`);

const CHILD = bundle(`apiVersion: playbook-bot/v1
id: child
description: A child.
steps:
  - id: look
    type: investigate
    description: Look.
    expected_findings: [seen]
  - id: back
    type: end
    description: Return.
`);

const PARENT = bundle(`apiVersion: playbook-bot/v1
id: parent
description: Delegates, then decides.
steps:
  - id: ask
    type: playbook
    description: Ask the child.
    playbook: child
    mode: delegate
  - id: judge
    type: decide
    description: Judge.
    rules:
      - { id: yes, all: [seen], conclusion: seen_it }
    fallback: { conclusion: not_seen }
  - id: fin
    type: end
    description: Fin.
    conclusion: ended
`);

const playbooks = (id: string) => ({ deploy: DEPLOY, child: CHILD, parent: PARENT })[id];

const alert = { severity: "critical", labels: { service: "shop" } };

describe("runCase", () => {
  it("passes when path, status, conclusion and outputs are as expected", async () => {
    const tc: TestCase = {
      name: "happy",
      alert,
      events: [
        { approve: { by: "m", permission: "maintain" } },
        { merge: true },
        { workflow: "success" },
        { record: { findings: { healthy: true } } },
      ],
      expect: {
        path: ["ok", "pr", "run", "notes", "done"],
        status: "completed",
        conclusion: "deployed",
        outputs: { pr: "https://github.test/pulls/1" },
      },
    };
    const r = await runCase(DEPLOY, playbooks, tc);
    expect(r.problems).toEqual([]);
    expect(r.ok).toBe(true);
    expect(r.path).toEqual(["ok", "pr", "run", "notes", "done"]);
  });

  it("reports every expectation that does not hold", async () => {
    const r = await runCase(DEPLOY, playbooks, {
      name: "wrong",
      alert,
      events: [{ approve: { permission: "maintain" } }, { merge: true }],
      expect: {
        path: ["ok"],
        status: "completed",
        conclusion: "deployed",
        error: "PB-TIMEOUT",
        outputs: { pr: "x" },
      },
    });
    expect(r.ok).toBe(false);
    expect(r.problems).toEqual([
      "path: expected [ok], got [ok, pr]",
      "status: expected completed, got waiting",
      "conclusion: expected deployed, got none",
      "error: expected PB-TIMEOUT, got none",
      'outputs.pr: expected "x", got undefined',
    ]);
  });

  it("says which events were left over when the run ended early", async () => {
    const r = await runCase(DEPLOY, playbooks, {
      name: "rejected",
      alert,
      events: [{ reject: { permission: "maintain", reason: "no" } }, { merge: true }],
      expect: { status: "failed", error: "PB-REJECTED" },
    });
    expect(r.problems).toEqual(["1 event(s) were not used: the run was failed at 'ok'"]);
  });

  it("fails an effect on request, whatever its place in the list, and retries by policy", async () => {
    const r = await runCase(DEPLOY, playbooks, {
      name: "rate limited",
      alert,
      events: [
        { approve: { permission: "maintain" } },
        { fail_effect: { step: "pr", code: "GH-RATE-LIMITED" } },
        { close_pr: true },
      ],
      expect: { path: ["ok", "pr", "pr"], status: "failed", error: "PB-PR-CLOSED" },
    });
    expect(r.problems).toEqual([]);
  });

  it("maps an unknown failure code to PB-EFFECT-FAILED", async () => {
    const r = await runCase(DEPLOY, playbooks, {
      name: "odd failure",
      alert,
      events: [
        { fail_effect: { step: "pr", code: "SOMETHING" } },
        { approve: { permission: "maintain" } },
      ],
      expect: { status: "failed", error: "PB-EFFECT-FAILED" },
    });
    expect(r.problems).toEqual([]);
  });

  it("lets time pass, and handles /retry and /cancel", async () => {
    const r = await runCase(DEPLOY, playbooks, {
      name: "workflow fails, retry, cancel",
      alert,
      events: [
        { wait: "1h" },
        { approve: { permission: "maintain" } },
        { merge: true },
        { workflow: "failure" },
        { retry: { permission: "write" } },
        { cancel: { by: "lead" } },
      ],
      expect: { path: ["ok", "pr", "run"], status: "cancelled" },
    });
    expect(r.problems).toEqual([]);
  });

  it("names a delegated child's steps after the child and takes the last decide's conclusion", async () => {
    const r = await runCase(PARENT, playbooks, {
      name: "delegates",
      events: [{ record: { findings: { seen: "yes" } } }],
      expect: {
        path: ["child/look", "child/back", "ask", "judge", "fin"],
        conclusion: "seen_it",
        status: "completed",
      },
    });
    expect(r.problems).toEqual([]);
  });

  it("treats a run that never starts as failed with PB-INPUT-INVALID", async () => {
    const bad = await runCase(DEPLOY, playbooks, {
      name: "no service",
      expect: { status: "completed", error: "PB-X", path: ["ok"] },
    });
    expect(bad.problems).toEqual([
      expect.stringMatching(
        /^status: expected completed, but the run did not start: .*'service' is required/,
      ),
      expect.stringMatching(/^error: expected PB-X, got PB-INPUT-INVALID/),
      "path: expected [ok], but the run did not start",
    ]);
    const good = await runCase(DEPLOY, playbooks, {
      name: "no service",
      expect: { status: "failed", error: "PB-INPUT-INVALID" },
    });
    expect(good.ok).toBe(true);
  });
});

describe("playbook-bot test", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "pb-test-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  async function cli(args: string[], cwd: string) {
    let out = "";
    let err = "";
    const code = await main(args, { out: (t) => (out += t), err: (t) => (err += t), cwd });
    return { code, out, err };
  }

  function write(rel: string, text: string): void {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), text);
  }

  const HELLO = `apiVersion: playbook-bot/v1
id: hi
description: Hi.
steps:
  - id: say
    type: comment
    description: Say hi.
    body: hi
`;

  it("runs the bundled playbooks' cases", async () => {
    const r = await cli(["test", "playbooks"], root);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/✔ hello-world: an approval makes the branch and the commit\n/);
    expect(r.out).toMatch(/^\d+ cases passed, 0 failed\n/m);
  });

  it("exits 1 and shows the differences when a case fails", async () => {
    write(
      "playbooks/hi.yaml",
      `${HELLO}tests:\n  - name: wrong path\n    expect: { path: [nope] }\n  - name: right path\n    expect: { path: [say] }\n`,
    );
    const r = await cli(["test"], dir);
    expect(r.code).toBe(1);
    expect(r.out).toContain("✖ hi: wrong path\n    path: expected [nope], got [say]\n");
    expect(r.out).toContain("✔ hi: right path\n");
    expect(r.out).toContain("1 case passed, 1 failed\n");
  });

  it("counts playbooks without cases", async () => {
    write("playbooks/hi.yaml", HELLO);
    const r = await cli(["test"], dir);
    expect(r.code).toBe(0);
    expect(r.out).toBe("0 cases passed, 0 failed (1 playbook has no tests)\n");
  });

  it("refuses to run cases of invalid playbooks", async () => {
    write("playbooks/hi.yaml", HELLO.replace("type: comment", "type: coment"));
    const r = await cli(["test"], dir);
    expect(r.code).toBe(1);
    expect(r.out).toContain("[schema-step-type]");
  });
});
