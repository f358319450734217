import { describe, expect, it } from "vitest";
import type { StartRequest } from "../../../src/core/engine/engine.js";
import { Driver, INITIATOR, bundle, yaml } from "./helpers.js";

const RUN = "20260301-1000-001";

const effectsPlaybook = yaml`
  apiVersion: playbook-bot/v1
  id: all-effects
  name: All effects
  inputs:
    slug: { type: string, default: fix-it }
    title: { type: string, default: "Hello @team <!-- x -->" }
  steps:
    - id: say
      type: comment
      body: "Started for {{ inputs.title }}"
    - id: br
      type: branch
      name: "work/{{ inputs.slug }}"
      from: main
    - id: write
      type: commit
      branch: "{{ steps.br.outputs.name }}"
      message: "add {{ inputs.slug }}"
      files:
        - path: "docs/{{ inputs.slug }}.md"
          template: templates/x.md
        - path: notes.txt
          content: "comment {{ steps.say.outputs.id }}"
      paths: ["docs/{{ inputs.slug }}.md"]
    - id: open
      type: issue
      title: "Follow up {{ inputs.slug }}"
      body: body
      labels: [todo, "area/{{ inputs.slug }}"]
      assignees: [bob]
    - id: tag
      type: label
      add: [triaged]
      remove: [new]
      issue: "{{ steps.open.outputs.number }}"
    - id: pr
      type: pull_request
      head: "{{ steps.br.outputs.name }}"
      base: main
      title: "PR for {{ inputs.slug }}"
      body: "Commit {{ steps.write.outputs.sha }}"
      draft: true
      labels: [bot]
      reviewers: [carol]
      team_reviewers: [org/core]
    - id: shut
      type: close
      reason: not_planned
      comment: "Done in {{ steps.pr.outputs.url }}"
    - id: wf
      type: dispatch
      workflow: deploy.yml
      ref: main
      inputs: { n: 3, who: "{{ run.initiator }}" }
      wait: false
    - id: fin
      type: end
      advice: "workflow {{ steps.wf.outputs.run_id }}"
`;

describe("effect steps", () => {
  it("request effects with rendered params and run/step/attempt keys; outputs feed later templates", () => {
    const d = new Driver(
      bundle(effectsPlaybook, {
        files: { "templates/x.md": "# {{ inputs.slug }} by {{ run.initiator }}" },
      }),
    );
    d.start({}, { context: { issue: { number: 7 } } });
    d.drive();
    const say = d.effect();
    expect(say).toEqual({
      key: `${RUN}/say/1`,
      kind: "comment",
      step: "say",
      params: { body: "Started for Hello @\u200bteam &lt;!-- x --&gt;" },
    });
    expect(d.run.status).toBe("running");
    expect(d.frame.phase).toBe("effect");
    d.answer({ id: 99, url: "https://c" });
    expect(d.last.continue).toBe(true);
    expect(d.frame.results.say?.outputs).toEqual({ id: 99, url: "https://c" });
    d.drive();
    expect(d.effect()).toEqual({
      key: `${RUN}/br/1`,
      kind: "branch",
      step: "br",
      params: { name: "work/fix-it", from: "main", require_new: false },
    });
    d.answer({ name: "work/fix-it", sha: "abc" });
    d.drive();
    expect(d.effect()).toEqual({
      key: `${RUN}/write/1`,
      kind: "commit",
      step: "write",
      params: {
        branch: "work/fix-it",
        message: "add fix-it",
        files: [
          { path: "docs/fix-it.md", content: "# fix-it by alice" },
          { path: "notes.txt", content: "comment 99" },
        ],
        paths: ["docs/fix-it.md"],
        push: true,
        pull: true,
      },
    });
    d.answer({ sha: "c0ffee" });
    d.drive();
    expect(d.effect()).toMatchObject({
      key: `${RUN}/open/1`,
      kind: "issue",
      params: {
        title: "Follow up fix-it",
        body: "body",
        labels: ["todo", "area/fix-it"],
        assignees: ["bob"],
      },
    });
    d.answer({ number: 12, url: "u" });
    d.drive();
    expect(d.effect()).toMatchObject({
      key: `${RUN}/tag/1`,
      kind: "label",
      params: { add: ["triaged"], remove: ["new"], issue: "12" },
    });
    d.answer({ labels: ["triaged"] });
    d.drive();
    expect(d.effect()).toMatchObject({
      key: `${RUN}/pr/1`,
      kind: "pull_request",
      params: {
        head: "work/fix-it",
        base: "main",
        title: "PR for fix-it",
        body: "Commit c0ffee",
        draft: true,
        labels: ["bot"],
        reviewers: ["carol"],
        team_reviewers: ["org/core"],
      },
    });
    d.answer({ number: 5, url: "https://pr/5" });
    // without wait: merged, the pull request step is done with its effect
    expect(d.frame.results.pr).toMatchObject({ status: "completed", outputs: { number: 5 } });
    d.drive();
    expect(d.effect()).toMatchObject({
      key: `${RUN}/shut/1`,
      kind: "close",
      params: { comment: "Done in https://pr/5", reason: "not_planned" },
    });
    expect(d.effect().params).not.toHaveProperty("issue");
    d.answer({ state: "closed" });
    d.drive();
    expect(d.effect()).toMatchObject({
      key: `${RUN}/wf/1`,
      kind: "dispatch",
      params: { workflow: "deploy.yml", ref: "main", inputs: { n: 3, who: "alice" } },
    });
    d.answer({ run_id: 42 });
    // wait: false → done at once
    expect(d.frame.current).toBe("fin");
    d.drive();
    expect(d.run.status).toBe("completed");
    expect(d.run.end).toEqual({ status: "success", advice: "workflow 42" });
    expect(d.last.messages.at(-1)?.text).toContain("workflow 42");
  });

  it("fails with PB-TEMPLATE-UNDEFINED when a commit template file is missing from the bundle", () => {
    const d = new Driver(bundle(effectsPlaybook));
    d.start();
    d.drive();
    d.answer({ id: 1 });
    d.drive();
    d.answer({ name: "work/fix-it" });
    d.drive();
    expect(d.run.status).toBe("failed");
    expect(d.run.error?.code).toBe("PB-TEMPLATE-UNDEFINED");
    expect(d.run.error?.message).toContain("templates/x.md");
  });
});

describe("template safety", () => {
  const pb = yaml`
    apiVersion: playbook-bot/v1
    id: safety
    inputs:
      topic: { type: string, required: true }
    steps:
      - id: br
        type: branch
        name: "fix/{{ inputs.topic }}"
      - id: write
        type: commit
        branch: main
        message: "m"
        files:
          - path: "docs/{{ inputs.topic }}"
            content: "x"
      - id: tag
        type: label
        add: ["{{ inputs.topic }}"]
      - id: fin
        type: end
  `;
  for (const topic of ["two words", "a..b", "x~1"]) {
    it(`refuses a branch name rendered from '${topic}' (PB-TEMPLATE-UNSAFE)`, () => {
      const d = new Driver(bundle(pb));
      d.start({ topic });
      d.drive();
      expect(d.last.effects).toEqual([]);
      expect(d.run.status).toBe("failed");
      expect(d.run.error?.code).toBe("PB-TEMPLATE-UNSAFE");
      expect(d.run.error?.message).toContain("not a safe branch");
    });
  }

  it("refuses a path that leaves the repository and a label that is too long", () => {
    const viaPath = new Driver(bundle(pb));
    viaPath.start({ topic: "ok" });
    viaPath.drive();
    viaPath.answer({ name: "fix/ok" });
    expect(viaPath.frame.current).toBe("write");
    // a path with '..' is checked when the commit renders it
    viaPath.frame.inputs.topic = "../etc";
    viaPath.drive();
    expect(viaPath.run.error?.code).toBe("PB-TEMPLATE-UNSAFE");
    expect(viaPath.run.error?.message).toContain("not a safe path");

    const viaLabel = new Driver(bundle(pb));
    viaLabel.start({ topic: "ok" });
    viaLabel.drive();
    viaLabel.answer({});
    viaLabel.drive();
    viaLabel.answer({});
    viaLabel.frame.inputs.topic = "x".repeat(51);
    viaLabel.drive();
    expect(viaLabel.run.error?.code).toBe("PB-TEMPLATE-UNSAFE");
    expect(viaLabel.run.error?.message).toContain("not a safe label");
  });
});

describe("pull_request with closes_issue", () => {
  const pb = yaml`
    apiVersion: playbook-bot/v1
    id: pr-closes
    steps:
      - id: pr
        type: pull_request
        head: feature
        title: t
        body: "Bumps {{ inputs.what }}"
        closes_issue: true
    inputs:
      what: { type: string, default: "a thing" }
  `;
  const bodyOf = (extra: Partial<StartRequest>) => {
    const d = new Driver(bundle(pb));
    d.start({}, extra);
    d.drive();
    const effect = d.last.effects.find((e) => e.kind === "pull_request");
    return (effect?.params as { body?: string } | undefined)?.body;
  };

  it("ends the body with `Closes #<n>` when the run has an issue", () => {
    expect(bodyOf({ context: { issue: { number: 42 } } })).toBe("Bumps a thing\n\nCloses #42");
  });

  it("leaves the body as written when the run has no issue (a local run)", () => {
    expect(bodyOf({ context: {} })).toBe("Bumps a thing");
  });
});

describe("pull_request with wait: merged", () => {
  const pb = yaml`
    apiVersion: playbook-bot/v1
    id: pr-wait
    steps:
      - id: pr
        type: pull_request
        head: feature
        title: t
        wait: merged
      - id: fin
        type: end
        advice: "merged {{ steps.pr.outputs.merge_sha }} from {{ steps.pr.outputs.head }}"
  `;
  function opened(): Driver {
    const d = new Driver(bundle(pb));
    d.start();
    d.drive();
    d.answer({ number: 8, head: "feature", url: "https://pr/8" });
    return d;
  }

  it("waits for the merge of its own pull request, then continues with merged outputs", () => {
    const d = opened();
    expect(d.run.status).toBe("waiting");
    expect(d.frame.awaiting).toEqual({ pullRequest: 8 });
    expect(d.last.messages[0]?.text).toContain("#8");
    // another pull request changes nothing
    const other = d.send({ type: "pull_request", id: "pr-x", number: 9, merged: true });
    expect(other.changed).toBe(false);
    d.send({
      type: "pull_request",
      id: "pr-y",
      number: 8,
      merged: true,
      mergeSha: "m1",
      url: "https://pr/8",
    });
    expect(d.frame.results.pr).toMatchObject({
      status: "completed",
      outputs: { number: 8, merged: true, merge_sha: "m1", head: "feature", url: "https://pr/8" },
    });
    d.drive();
    expect(d.run.end?.advice).toBe("merged m1 from feature");
  });

  it("fails with PB-PR-CLOSED when the pull request is closed unmerged", () => {
    const d = opened();
    d.send({ type: "pull_request", id: "pr-z", number: 8, merged: false });
    expect(d.run.status).toBe("failed");
    expect(d.run.error?.code).toBe("PB-PR-CLOSED");
  });

  it("ignores commands and other outside events while waiting", () => {
    const d = opened();
    expect(
      d.send({ type: "workflow_run", id: "w", workflow: "x", conclusion: "success" }).changed,
    ).toBe(false);
    const r = d.command("record", MAINTAINER_LIKE, "a=1");
    expect(r.changed).toBe(false);
  });
});

const MAINTAINER_LIKE = { login: "zed", permission: "maintain" as const };

describe("dispatch waiting for workflow_run", () => {
  const pb = yaml`
    apiVersion: playbook-bot/v1
    id: dispatching
    steps:
      - id: wf
        type: dispatch
        workflow: rollback.yml
        inputs: { reason: "by {{ run.initiator }}" }
      - id: fin
        type: end
        advice: "{{ steps.wf.outputs.conclusion }} {{ steps.wf.outputs.url }}"
  `;

  it("matches the run id when the effect reported one; success continues", () => {
    const d = new Driver(bundle(pb));
    d.start();
    d.drive();
    expect(d.effect().params).toEqual({ workflow: "rollback.yml", inputs: { reason: "by alice" } });
    d.answer({ run_id: 77 });
    expect(d.frame.awaiting).toEqual({ workflow: "rollback.yml", workflowRun: 77 });
    expect(
      d.send({
        type: "workflow_run",
        id: "w1",
        workflow: "rollback.yml",
        runId: 76,
        conclusion: "success",
      }).changed,
    ).toBe(false);
    d.send({
      type: "workflow_run",
      id: "w2",
      workflow: "rollback.yml",
      runId: 77,
      conclusion: "success",
      url: "https://run/77",
    });
    expect(d.frame.results.wf?.outputs).toMatchObject({ conclusion: "success", run_id: 77 });
    d.drive();
    expect(d.run.end?.advice).toBe("success https://run/77");
  });

  it("matches by workflow name without a run id; failure fails the run", () => {
    const d = new Driver(bundle(pb));
    d.start();
    d.drive();
    d.answer({});
    expect(d.frame.awaiting).toEqual({ workflow: "rollback.yml" });
    expect(
      d.send({ type: "workflow_run", id: "w0", workflow: "other.yml", conclusion: "failure" })
        .changed,
    ).toBe(false);
    d.send({ type: "workflow_run", id: "w1", workflow: "rollback.yml", conclusion: "failure" });
    expect(d.run.status).toBe("failed");
    expect(d.run.error?.code).toBe("PB-WORKFLOW-FAILED");
    expect(d.run.error?.message).toContain("'failure'");
  });
});

describe("end", () => {
  it("records status, conclusion and advice; failure status fails the run", () => {
    const d = new Driver(
      bundle(yaml`
        apiVersion: playbook-bot/v1
        id: ends
        inputs:
          who: { type: string, default: "@mallory" }
        steps:
          - id: fin
            type: end
            status: failure
            conclusion: broken
            advice: "ask {{ inputs.who }}"
      `),
    );
    d.start();
    d.drive();
    expect(d.run.status).toBe("failed");
    expect(d.run.end).toEqual({
      status: "failure",
      conclusion: "broken",
      advice: "ask @mallory",
    });
    expect(d.last.messages.at(-1)?.text).toContain("ended with a failure");
    // Kept as written, and inert where it is shown.
    expect(d.last.messages.at(-1)?.text).toContain("ask @\u200bmallory");
    expect(d.last.continue).toBe(false);
  });

  it("advice is the author's Markdown: a value in it stays text, and the message keeps its form", () => {
    const d = new Driver(
      bundle(yaml`
        apiVersion: playbook-bot/v1
        id: ends
        inputs:
          who: { type: string, default: ${JSON.stringify("*[me](https://e.example)* `x` #1 <b>")} }
        steps:
          - id: fin
            type: end
            advice: ${JSON.stringify("Ask **{{ inputs.who }}**.\n\nThen run `make`.")}
      `),
    );
    d.start();
    d.drive();
    expect(d.run.end?.advice).toBe(
      "Ask **\\*\\[me\\](https://e.example)\\* \\`x\\` \\#1 \\<b\\>**.\n\nThen run `make`.",
    );
    const said = d.last.messages.at(-1)?.text ?? "";
    expect(said).toContain(
      "completed.\n\nAsk **\\*\\[me]\\(https:\u200b//e.example)\\* \\`x\\` #\u200b1 \\<b>**.",
    );
    expect(said).toContain("\n\nThen run `make`.");
    expect(said).not.toContain("&#xA;");
  });

  it("a neutral end with one handoff requests a start_playbook effect; several are listed", () => {
    const one = new Driver(
      bundle(yaml`
        apiVersion: playbook-bot/v1
        id: hands
        steps:
          - id: fin
            type: end
            status: neutral
            handoff: [next-one]
      `),
    );
    one.start();
    one.drive();
    expect(one.run.status).toBe("completed");
    expect(one.run.end).toEqual({ status: "neutral", handoff: ["next-one"] });
    expect(one.last.effects).toEqual([
      {
        key: `${RUN}/handoff/next-one`,
        kind: "start_playbook",
        step: "fin",
        params: { playbook: "next-one", inputs: {} },
      },
    ]);

    const many = new Driver(
      bundle(yaml`
        apiVersion: playbook-bot/v1
        id: hands2
        steps:
          - id: fin
            type: end
            handoff: [a-one, b-two]
      `),
    );
    many.start();
    many.drive();
    expect(many.last.effects).toEqual([]);
    expect(many.last.messages.at(-1)?.text).toContain("`/run a-one`, `/run b-two`");
  });

  it("an end whose advice names a missing value fails with PB-TEMPLATE-UNDEFINED", () => {
    const d = new Driver(
      bundle(
        yaml`
          apiVersion: playbook-bot/v1
          id: bad-advice
          steps:
            - id: fin
              type: end
              advice: "{{ inputs.nope }}"
        `,
        { allow: ["template-unresolved"] },
      ),
    );
    d.start();
    d.drive();
    expect(d.run.error?.code).toBe("PB-TEMPLATE-UNDEFINED");
  });
});

describe("if and when", () => {
  const pb = yaml`
    apiVersion: playbook-bot/v1
    id: flow
    inputs:
      n: { type: number, default: 1 }
      loud: { type: boolean, default: false }
    steps:
      - id: shout
        type: comment
        if: inputs.loud == true
        body: LOUD
      - id: route
        type: comment
        body: routing
        next:
          - { when: "inputs.n > 10", goto: big }
          - { when: "inputs.n > 5", goto: medium }
      - id: small
        type: end
        conclusion: small
      - id: medium
        type: end
        conclusion: medium
      - id: big
        type: end
        conclusion: big
  `;
  function runWith(inputs: Record<string, number | boolean>): Driver {
    const d = new Driver(bundle(pb));
    d.start(inputs);
    d.drive();
    if (d.frame.current === "shout") {
      d.answer({});
      d.drive();
    }
    d.answer({});
    d.drive();
    return d;
  }

  it("skips a step whose if is false, and records it as skipped", () => {
    const d = new Driver(bundle(pb));
    d.start();
    d.drive();
    expect(d.effect().step).toBe("route");
    expect(d.frame.results.shout?.status).toBe("skipped");
    const loud = new Driver(bundle(pb));
    loud.start({ loud: true });
    loud.drive();
    expect(loud.effect().params).toEqual({ body: "LOUD" });
  });

  it("the first true when wins, and none true falls through to the next step", () => {
    expect(runWith({ n: 20 }).run.end?.conclusion).toBe("big");
    expect(runWith({ n: 7 }).run.end?.conclusion).toBe("medium");
    expect(runWith({ n: 1 }).run.end?.conclusion).toBe("small");
  });

  it("a default branch is taken when no when is true", () => {
    const d = new Driver(
      bundle(yaml`
        apiVersion: playbook-bot/v1
        id: flow2
        inputs:
          n: { type: number, default: 1 }
        steps:
          - id: route
            type: comment
            body: routing
            next:
              - { when: "inputs.n > 10", goto: big }
              - { default: other }
          - id: big
            type: end
            conclusion: big
          - id: other
            type: end
            conclusion: other
      `),
    );
    d.start();
    d.drive();
    d.answer({});
    d.drive();
    expect(d.run.end?.conclusion).toBe("other");
  });

  it("nodes mode without next ends the frame after the step", () => {
    const d = new Driver(
      bundle(
        yaml`
        apiVersion: playbook-bot/v1
        id: nodes-end
        entrypoint: a
        nodes:
          a:
            type: comment
            body: hi
      `,
        { allow: ["terminal-missing"] },
      ),
    );
    d.start();
    d.drive();
    d.answer({});
    d.drive();
    expect(d.run.status).toBe("completed");
    expect(d.run.end).toEqual({ status: "success" });
  });
});

describe("authority", () => {
  const pb = (authority: string, extra = "") => yaml`
    apiVersion: playbook-bot/v1
    id: authority
    ${extra}
    steps:
      - id: note
        type: comment
        body: hi
        authority: ${authority}
      - id: fin
        type: end
  `;

  it("ask-first waits for a maintainer's approval before the effect", () => {
    const d = new Driver(bundle(pb("ask-first")));
    d.start();
    d.drive();
    expect(d.last.effects).toEqual([]);
    expect(d.run.status).toBe("waiting");
    expect(d.frame.phase).toBe("approval");
    expect(d.last.messages[0]?.kind).toBe("waiting");
    expect(d.last.messages[0]?.text).toContain("asks first");
    // the initiator, a writer, and /record are refused
    expect(d.command("approve", INITIATOR).reply?.outcome).toBe("refused");
    expect(d.command("approve", { login: "w", permission: "write" }).reply?.outcome).toBe(
      "refused",
    );
    const rec = d.command("record", { login: "m", permission: "maintain" }, "a=1");
    expect(rec.reply).toEqual({
      outcome: "refused",
      reason: "'note' waits for /approve, not /record",
    });
    const ok = d.command("approve", { login: "m", permission: "maintain" });
    expect(ok.reply?.outcome).toBe("accepted");
    expect(ok.continue).toBe(true);
    d.drive();
    expect(d.effect()).toMatchObject({ kind: "comment", key: `${RUN}/note/1` });
    d.answer({});
    d.drive();
    expect(d.run.status).toBe("completed");
  });

  it("ask-first /reject fails the run with PB-REJECTED", () => {
    const d = new Driver(bundle(pb("ask-first")));
    d.start();
    d.drive();
    d.command("reject", { login: "m", permission: "maintain" }, "not now");
    expect(d.run.status).toBe("failed");
    expect(d.run.error?.code).toBe("PB-REJECTED");
    expect(d.run.error?.message).toContain("not now");
  });

  it("show-me posts a report with the step's outputs", () => {
    const d = new Driver(bundle(pb("show-me")));
    d.start();
    d.drive();
    d.answer({ id: 3, url: "https://c/3" });
    expect(d.last.messages).toContainEqual({
      kind: "report",
      text: '**note** done: id=3, url="https:\u200b//c/3"',
    });
  });

  it("authority.default applies to side-effect steps; ask_first_below gates show-me for a low initiator", () => {
    const byDefault = new Driver(
      bundle(
        pb("just-do-it", "authority: { default: ask-first }").replace(
          "authority: just-do-it",
          "name: Note",
        ),
      ),
    );
    byDefault.start();
    byDefault.drive();
    expect(byDefault.frame.phase).toBe("approval");

    const below = new Driver(bundle(pb("show-me", "authority: { ask_first_below: maintain }")));
    below.start({}, { initiator: { login: "wendy", permission: "write" } });
    below.drive();
    expect(below.frame.phase).toBe("approval");

    const above = new Driver(bundle(pb("show-me", "authority: { ask_first_below: maintain }")));
    above.start();
    above.drive();
    expect(above.frame.phase).toBe("effect");

    const unknown = new Driver(bundle(pb("show-me", "authority: { ask_first_below: read }")));
    unknown.start({}, { initiator: { login: "nobody" } });
    unknown.drive();
    expect(unknown.frame.phase).toBe("approval");
  });
});

describe("a template naming a missing value fails the step, in every field", () => {
  const cases: [string, string][] = [
    ["comment", "body: '{{ inputs.nope }}'"],
    ["branch", "name: 'x/{{ inputs.nope }}'"],
    ["commit", "branch: '{{ inputs.nope }}'\n    message: m\n    paths: [a]"],
    ["commit", "branch: b\n    message: m\n    files: [{ path: '{{ inputs.nope }}', content: x }]"],
    ["commit", "branch: b\n    message: m\n    files: [{ path: a, content: '{{ inputs.nope }}' }]"],
    ["commit", "branch: b\n    message: m\n    paths: ['{{ inputs.nope }}']"],
    ["issue", "title: t\n    labels: ['{{ inputs.nope }}']"],
    ["issue", "title: t\n    assignees: ['{{ inputs.nope }}']"],
    ["issue", "title: '{{ inputs.nope }}'"],
    ["label", "add: ['{{ inputs.nope }}']"],
    ["label", "remove: ['{{ inputs.nope }}']"],
    ["close", "comment: '{{ inputs.nope }}'"],
    ["pull_request", "head: h\n    title: t\n    labels: ['{{ inputs.nope }}']"],
    ["pull_request", "head: h\n    title: t\n    reviewers: ['{{ inputs.nope }}']"],
    ["pull_request", "head: h\n    title: t\n    team_reviewers: ['{{ inputs.nope }}']"],
    ["pull_request", "head: h\n    title: '{{ inputs.nope }}'"],
    ["dispatch", "workflow: w.yml\n    inputs: { a: '{{ inputs.nope }}' }"],
    ["dispatch", "workflow: w.yml\n    ref: '{{ inputs.nope }}'"],
    ["ai", "prompt: '{{ inputs.nope }}'"],
    ["playbook", "playbook: other\n    mode: delegate\n    with: { a: '{{ inputs.nope }}' }"],
    ["checkpoint", "message: '{{ inputs.nope }}'"],
    ["investigate", "description: '{{ inputs.nope }}'"],
    [
      "decide",
      "rules: [{ id: r, all: [x], conclusion: c }]\n    confirmed_facts: [{ finding: x, text: '{{ inputs.nope }}' }]",
    ],
  ];
  for (const [kind, fields] of cases) {
    it(`${kind}: ${fields.split("\n").at(-1)?.trim()}`, () => {
      const text = [
        "apiVersion: playbook-bot/v1",
        "id: missing",
        "steps:",
        "  - id: s",
        `    type: ${kind}`,
        `    ${fields}`,
        "  - id: fin",
        "    type: end",
        "",
      ].join("\n");
      const d = new Driver(bundle(text, { allow: ["template-unresolved", "step-shape"] }));
      d.start();
      if (kind === "decide") {
        d.run.stack[0]!.findings.x = true;
      }
      d.drive();
      expect(d.last.effects).toEqual([]);
      expect(d.run.status).toBe("failed");
      expect(d.run.error?.code).toBe("PB-TEMPLATE-UNDEFINED");
      expect(d.run.error?.message).toContain("'{{ inputs.nope }}' has no value");
    });
  }

  it("close defaults its reason to completed", () => {
    const d = new Driver(
      bundle(yaml`
        apiVersion: playbook-bot/v1
        id: defaults
        steps:
          - id: shut
            type: close
          - id: fin
            type: end
      `),
    );
    d.start();
    d.drive();
    expect(d.effect().params).toEqual({ reason: "completed" });
  });
});
