import { describe, expect, it } from "vitest";
import { Driver, bundle, yaml } from "./helpers.js";

describe("contracts on steps: input_schema and output_schema", () => {
  const playbook = yaml`
    apiVersion: playbook-bot/v1
    id: contracts
    inputs:
      issue_title: { type: string, default: "ok" }
    steps:
      - id: open
        type: issue
        title: "{{ inputs.issue_title }}"
        input_schema:
          type: object
          required: [title]
          properties: { title: { type: string, maxLength: 10 } }
        output_schema:
          type: object
          required: [number, url]
          properties: { number: { type: integer, minimum: 1 } }
      - id: done
        type: end
  `;

  it("lets data through that keeps the contract", () => {
    const d = new Driver(bundle(playbook));
    d.start();
    d.drive();
    expect(d.effect().params.title).toBe("ok");
    d.answer({ number: 7, url: "https://github.com/o/r/issues/7" });
    d.drive();
    expect(d.run.status).toBe("completed");
  });

  it("fails the step whose rendered fields break its input_schema, before any effect", () => {
    const d = new Driver(bundle(playbook));
    d.start({ issue_title: "a title far too long for the contract" });
    d.drive();
    expect(d.last.effects).toEqual([]);
    expect(d.run.status).toBe("failed");
    expect(d.run.error?.code).toBe("PB-CONTRACT-INPUT");
    expect(d.run.error?.message).toBe(
      "step open: the data entering it does not match its input_schema: title must NOT have more than 10 characters",
    );
  });

  it("fails the step whose outputs break its output_schema", () => {
    const d = new Driver(bundle(playbook));
    d.start();
    d.drive();
    d.answer({ number: 0, url: "https://github.com/o/r/issues/0" });
    d.drive();
    expect(d.run.status).toBe("failed");
    expect(d.run.error).toMatchObject({
      code: "PB-CONTRACT-OUTPUT",
      message:
        "step open: the data it produced does not match its output_schema: number must be >= 1",
    });
  });
});

describe("decide with require_evidence", () => {
  it("lists the findings the conclusion rests on", () => {
    const d = new Driver(
      bundle(yaml`
        apiVersion: playbook-bot/v1
        id: evidence
        steps:
          - id: look
            type: investigate
            expected_findings: [cache_hit, db_row_missing]
          - id: d
            type: decide
            require_evidence: true
            rules:
              - { id: stale, all: [cache_hit], any: [db_row_missing, ttl_long], conclusion: stale_cache }
            fallback: { conclusion: inconclusive }
          - id: done
            type: end
      `),
    );
    d.start();
    d.drive();
    d.command("record", { login: "bob", permission: "write" }, "cache_hit=yes db_row_missing=yes");
    d.drive();
    expect(d.run.status).toBe("completed");
    expect(d.frame.results.d?.outputs).toMatchObject({
      conclusion: "stale_cache",
      evidence: ["cache_hit", "db_row_missing"],
    });
  });
});

describe("ai verify: a check registered in code", () => {
  const verifying = (check: string) => yaml`
    apiVersion: playbook-bot/v1
    id: verified
    steps:
      - id: think
        type: ai
        prompt: Answer in JSON.
        verify: ${check}
      - id: done
        type: end
  `;

  it("passes an answer the check accepts", () => {
    const d = new Driver(bundle(verifying("json")));
    d.start();
    d.drive();
    d.answer({ text: '{"ok": true}' });
    d.drive();
    expect(d.run.status).toBe("completed");
  });

  it("fails the step when the check refuses the answer", () => {
    const d = new Driver(bundle(verifying("json")));
    d.start();
    d.drive();
    d.answer({ text: "sure, here you go" });
    d.drive();
    expect(d.run.error).toMatchObject({
      code: "PB-VERIFY-FAILED",
      message: "check json: the answer is not JSON",
    });
  });
});

describe("object inputs", () => {
  const playbook = yaml`
    apiVersion: playbook-bot/v1
    id: objects
    inputs:
      config: { type: object, default: { region: eu-west-1, tiers: [a, b] } }
    steps:
      - id: say
        type: comment
        body: "region {{ inputs.config.region }}, first tier {{ inputs.config.tiers[0] }}"
      - id: done
        type: end
  `;

  it("reads fields of a JSON object input, from its default or from a value given", () => {
    for (const [given, expected] of [
      [undefined, "region eu-west-1, first tier a"],
      ['{"region": "us-east-2", "tiers": ["z"]}', "region us-east-2, first tier z"],
    ] as const) {
      const d = new Driver(bundle(playbook));
      d.start(given === undefined ? {} : { config: given });
      d.drive();
      expect(d.effect().params.body).toBe(expected);
    }
  });

  it("refuses a value that is not a JSON object", () => {
    const d = new Driver(bundle(playbook));
    expect(() => d.start({ config: "[1, 2]" })).toThrow(
      '\'config\' must be a JSON object such as {"key": "value"}',
    );
  });
});

describe("interaction_mode", () => {
  it("needs_review: every step that changes something waits for an approval first", () => {
    const d = new Driver(
      bundle(yaml`
        apiVersion: playbook-bot/v1
        id: reviewed
        interaction_mode: [needs_review]
        steps:
          - { id: say, type: comment, body: hello }
          - { id: done, type: end }
      `),
    );
    d.start();
    d.drive();
    expect(d.last.effects).toEqual([]);
    expect(d.run.status).toBe("waiting");
    d.command("approve", { login: "bob", permission: "maintain" });
    d.drive();
    expect(d.effect().kind).toBe("comment");
  });

  it("silent: tells people only what needs them; the steps still run", () => {
    const text = (mode: string) => yaml`
      apiVersion: playbook-bot/v1
      id: quiet
      interaction_mode: [${mode}]
      steps:
        - id: look
          type: decide
          rules: [{ id: always, conclusion: fine }]
        - { id: ok, type: checkpoint, message: Go on? }
        - { id: done, type: end, advice: All good. }
    `;
    const kinds = (mode: string): string[] => {
      const d = new Driver(bundle(text(mode)));
      d.start();
      d.drive();
      d.command("approve", { login: "bob", permission: "maintain" });
      d.drive();
      expect(d.run.status).toBe("completed");
      return d.all.flatMap((r) => r.messages.map((m) => m.kind));
    };
    expect(kinds("conversational")).toContain("done");
    expect(kinds("silent")).toEqual(["waiting"]);
  });
});
