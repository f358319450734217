import { describe, expect, it } from "vitest";
import {
  readStatusComment,
  renderStatusComment,
} from "../../../src/runtime/run-service/status-comment.js";
import type { Effect } from "../../../src/core/engine/events.js";
import { repositoryStateKey, type StateSeal } from "../../../src/runtime/state-codec.js";
import { Driver, MAINTAINER, bundle, yaml } from "../../core/engine/helpers.js";

const SEAL: StateSeal = { key: repositoryStateKey("s3cret", 1, 2), issue: 5, comment: "77" };

const PLAYBOOK = bundle(yaml`
  apiVersion: playbook-bot/v1
  id: par
  name: Parallel
  inputs:
    hosts: { type: list, default: "alpha, beta, gamma" }
  limits: { max_parallel: 2 }
  steps:
    - id: checks
      type: parallel
      join: all
      on_branch_failure: continue
      branches:
        gate:
          - { id: gate-ok, type: checkpoint, message: "ok?", approvers: { permission: maintain } }
        lint:
          - { id: lint-say, type: comment, body: lint }
        tests:
          - { id: tests-say, type: comment, body: tests }
        docs:
          - { id: docs-say, type: comment, body: docs }
    - id: each
      type: comment
      for_each: "{{ inputs.hosts }}"
      body: "host {{ item }}"
`);

function render(d: Driver): string {
  return renderStatusComment(d.run, (id) => (id === "par" ? PLAYBOOK : undefined), SEAL);
}

describe("the status comment of a run with parallel steps", () => {
  it("lists each branch with its state: waiting for whom, running, done, failed, and marks them running", () => {
    const d = new Driver(PLAYBOOK);
    d.start();
    d.cont();
    const entered = d.cont();
    const byStep = Object.fromEntries(entered.effects.map((e) => [e.step, e])) as Record<
      string,
      Effect
    >;
    d.answer({ id: "1", url: "u" }, byStep["lint-say"]?.key);
    d.failEffect("GH-ERROR", byStep["tests-say"]?.key);
    const body = render(d);
    expect(body).toContain("**Branches of** `checks`:");
    expect(body).toContain("- `lint` — done");
    expect(body).toContain("- `tests` — failed");
    expect(body).toContain(
      "- `gate` — waiting for /approve from people with maintain access or more at `gate-ok`",
    );
    expect(body).toContain("- `docs` — running at `docs-say`");
    expect(body).toContain("`gate-ok` ← running");
    expect(body).toContain("class s_gate_ok,s_docs_say running");
    // The state read back is the run as it was.
    const read = readStatusComment(body, SEAL);
    expect(read.ok && read.run.stack[0]?.lanes).toEqual(d.run.stack[0]?.lanes);
  });

  it("lists the items of a for_each: running ones by value, and how many are still to start", () => {
    const d = new Driver(PLAYBOOK);
    d.start();
    d.cont();
    const entered = d.cont();
    for (const e of entered.effects) d.answer({ id: "1", url: "u" }, e.key);
    d.command("approve", MAINTAINER);
    d.cont();
    const items = d.cont();
    expect(items.effects).toHaveLength(2);
    d.answer({ id: "2", url: "u2" }, items.effects[0]?.key);
    const body = render(d);
    expect(body).toContain("**Items of** `each`:");
    expect(body).toContain("- `0: alpha` — done");
    expect(body).toContain("- `1: beta` — running at `each`");
    expect(body).toContain("- `2: gamma` — starting at `each`");
  });
});
