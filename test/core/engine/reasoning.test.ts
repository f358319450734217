import { describe, expect, it } from "vitest";
import { collectAiOutputs, MockAiAdapter } from "../../../src/runtime/ai.js";
import type { Value } from "../../../src/core/engine/state.js";
import { present, ruleMatches } from "../../../src/core/steps/decide/executor.js";
import { BOT, Driver, MAINTAINER, READER, TRIAGER, WRITER, bundle, yaml } from "./helpers.js";

describe("investigate", () => {
  const pb = yaml`
    apiVersion: playbook-bot/v1
    id: inv
    inputs:
      ns: { type: string, default: "web" }
    entrypoint: look
    nodes:
      look:
        type: investigate
        name: Look around
        description: "Check pods in {{ inputs.ns }}"
        suggested_calls:
          - { tool: k8s/list, args: { namespace: "{{ inputs.ns }}" } }
          - { tool: k8s/events }
        expected_findings: [failing_pods]
        next:
          - { condition: some pods fail, label: unhealthy, goto: logs }
          - { condition: all fine, label: healthy, goto: fin }
      logs:
        type: investigate
        description: Read logs
        expected_findings: [oom_killed, crash]
        next: fin
      fin:
        type: end
        advice: "pods {{ findings.failing_pods }} oom {{ findings.oom_killed }}"
  `;
  function started(): Driver {
    const d = new Driver(bundle(pb, { allow: ["template-order"] }));
    d.start();
    d.drive();
    return d;
  }

  it("waits with a description, suggested calls, findings to record and branches to choose", () => {
    const d = started();
    expect(d.run.status).toBe("waiting");
    const text = d.last.messages[0]?.text ?? "";
    expect(text).toContain("**Look around**\nCheck pods in web");
    expect(text).toContain('1. suggested call: `k8s/list` {"namespace":"web"}');
    expect(text).toContain("2. suggested call: `k8s/events`");
    expect(text).toContain("Have the bot make a suggested call: `/call <n>`");
    expect(text).toContain("`/record failing_pods=…`");
    expect(text).toContain("`/choose unhealthy` (some pods fail), `/choose healthy` (all fine)");
  });

  it("/record stores findings (numbers and booleans parsed) and /choose follows the label", () => {
    const d = started();
    const rec = d.command("record", TRIAGER, "failing_pods=3 note=slow");
    expect(rec.reply?.outcome).toBe("accepted");
    expect(d.frame.findings).toEqual({ failing_pods: 3, note: "slow" });
    // with prose branches, a complete /record still waits for /choose
    expect(d.frame.current).toBe("look");
    d.command("choose", WRITER, "unhealthy flag=true");
    expect(d.frame.current).toBe("logs");
    expect(d.frame.findings.flag).toBe(true);
    expect(d.frame.results.look?.outputs).toEqual({ chosen: "unhealthy" });
    d.drive();
    d.command("record", TRIAGER, "oom_killed=yes");
    expect(d.frame.current).toBe("logs");
    d.command("record", TRIAGER, "crash=false");
    expect(d.frame.current).toBe("fin");
    d.drive();
    expect(d.run.end?.advice).toBe("pods 3 oom yes");
  });

  it("refuses an unknown label with the list (and a guess), readers and bots, and empty records", () => {
    const d = started();
    const bad = d.command("choose", WRITER, "unhealty");
    expect(bad.reply).toEqual({
      outcome: "refused",
      reason: "choose one of: unhealthy, healthy — did you mean 'unhealthy'?",
    });
    expect(d.command("choose", WRITER, "zzz").reply?.reason).toBe(
      "choose one of: unhealthy, healthy",
    );
    expect(d.command("choose", WRITER).reply?.reason).toBe("choose one of: unhealthy, healthy");
    expect(d.command("record", READER, "a=1").reply?.reason).toContain("needs triage access");
    expect(d.command("record", TRIAGER, "just words").reply?.reason).toBe(
      "write findings as /record key=value",
    );
    expect(d.command("approve", WRITER).changed).toBe(false);
    expect(d.command("record", BOT, "a=1").reply?.outcome).toBe("refused");
    expect(d.frame.findings).toEqual({});
    expect(d.frame.current).toBe("look");
  });

  it("/choose on a step without prose branches is refused", () => {
    const d = started();
    d.command("choose", WRITER, "unhealthy");
    d.drive();
    expect(d.command("choose", WRITER, "x").reply?.reason).toBe(
      "'logs' has no branches to choose; record findings with /record",
    );
  });
});

describe("decide", () => {
  const pb = yaml`
    apiVersion: playbook-bot/v1
    id: dec
    entrypoint: gather
    nodes:
      gather:
        type: investigate
        description: gather
        expected_findings: [a, b, c]
        next: judge
      judge:
        type: decide
        name: Judge
        rules:
          - id: both
            all: [a, b]
            none: [c]
            conclusion: ab
            confidence: 0.9
            root_cause: A and B
            alternatives: [maybe C]
            next_actions: [fix A, fix B]
            goto: fin
          - id: either
            any: [a, b]
            conclusion: one
            goto: fin
        fallback:
          conclusion: unknown
          goto: fin
        confirmed_facts:
          - { finding: a, text: "A is {{ findings.a }}" }
          - { finding: c, text: "C seen" }
      fin:
        type: end
        advice: "{{ steps.judge.outputs.conclusion }} via {{ steps.judge.outputs.rule }}"
  `;
  function decideWith(record: string): Driver {
    const d = new Driver(bundle(pb, { allow: ["template-order"] }));
    d.start();
    d.drive();
    // the findings not named are recorded as 0 (absent), so the investigate step completes
    const named = record.split(" ").map((w) => w.split("=")[0]);
    const rest = ["a", "b", "c"].filter((k) => !named.includes(k)).map((k) => `${k}=0`);
    d.command("record", TRIAGER, [record, ...rest].join(" "));
    d.drive();
    return d;
  }

  it("first matching rule wins, with all/none, confirmed facts and a report", () => {
    const d = decideWith("a=yes b=2");
    const out = d.frame.results.judge?.outputs as Record<string, Value>;
    expect(out).toMatchObject({
      conclusion: "ab",
      confidence: 0.9,
      root_cause: "A and B",
      alternatives: ["maybe C"],
      next_actions: ["fix A", "fix B"],
      rule: "both",
      facts: ["A is yes"],
    });
    const report = d.all.flatMap((r) => r.messages).find((m) => m.kind === "report")?.text;
    expect(report).toBe(
      "**Judge**: ab (confidence 0.9)\nRoot cause: A and B\nConfirmed facts:\n- A is yes\n\nAlternatives: maybe C\nNext actions:\n- fix A\n- fix B",
    );
    expect(d.run.end?.advice).toBe("ab via both");
  });

  it("none excludes a rule; any matches one of several", () => {
    const d = decideWith("a=1 b=1 c=1");
    expect(d.run.end?.advice).toBe("one via either");
    expect(d.frame.results.judge?.outputs?.facts).toEqual(["A is 1", "C seen"]);
    expect(decideWith("b=true").run.end?.advice).toBe("one via either");
  });

  it("falls back when nothing matches; false-like findings are absent", () => {
    const d = decideWith("a=no b=false c=0");
    expect(d.frame.results.judge?.outputs).toMatchObject({
      conclusion: "unknown",
      rule: null,
      facts: [],
    });
    expect(d.run.end?.advice).toBe("unknown via ");
  });

  it("without a fallback, no match records a null conclusion and falls through", () => {
    const d = new Driver(
      bundle(yaml`
        apiVersion: playbook-bot/v1
        id: dec2
        steps:
          - id: judge
            type: decide
            rules:
              - { id: r, all: [x], conclusion: x }
          - id: fin
            type: end
            conclusion: done
      `),
    );
    d.start();
    d.drive();
    expect(d.frame.results.judge?.outputs).toMatchObject({
      conclusion: null,
      confidence: null,
      rule: null,
    });
    expect(d.all.flatMap((r) => r.messages).some((m) => m.text.includes("no rule matched"))).toBe(
      true,
    );
    expect(d.run.end?.conclusion).toBe("done");
  });

  it("present and ruleMatches treat null, false, 0, '', 'false', 'no' as absent", () => {
    for (const v of [null, false, 0, "", "false", "no"]) expect(present({ k: v }, "k")).toBe(false);
    for (const v of [true, 1, "x"]) expect(present({ k: v }, "k")).toBe(true);
    expect(present({}, "k")).toBe(false);
    expect(ruleMatches({ id: "r", conclusion: "c" }, {})).toBe(true);
    expect(ruleMatches({ id: "r", conclusion: "c", any: ["a"] }, { b: 1 })).toBe(false);
  });
});

describe("ai", () => {
  const pb = (extra = "", before = "") => yaml`
    apiVersion: playbook-bot/v1
    id: ai-run
    inputs:
      svc: { type: string, default: api }
    steps:
      ${before}
      - id: think
        type: ai
        prompt: "Why is {{ inputs.svc }} slow?"
        tools: [metrics/query]
        expected_findings: [cause, hot]
        ${extra}
      - id: fin
        type: end
        advice: "{{ steps.think.outputs.text }} / {{ findings.cause }}"
  `;

  it("requests an ai effect; the mock adapter's outputs and findings come back through the run", async () => {
    const d = new Driver(bundle(pb(), { allow: ["template-order"] }));
    d.start();
    d.drive();
    const fx = d.effect();
    expect(fx.kind).toBe("ai");
    expect(fx.params).toEqual({
      prompt: "Why is api slow?",
      tools: ["metrics/query"],
      scope: "read-only",
      expected_findings: ["cause", "hot"],
      expect_files: [],
      // The model may make the run's default budget, up to a step's most.
      max_tool_calls: 20,
    });
    const adapter = new MockAiAdapter({
      replies: [
        { when: "api", text: "GC pauses", findings: { cause: "gc", hot: true, extra: "x" } },
      ],
    });
    const outputs = await collectAiOutputs(adapter, String(fx.params.prompt), ["metrics/query"], {
      scope: "read-only",
      expectedFindings: ["cause", "hot"],
    });
    d.answer(outputs);
    expect(d.frame.findings).toEqual({ cause: "gc", hot: true });
    expect(d.frame.results.think?.outputs?.text).toBe("GC pauses");
    d.drive();
    expect(d.run.end?.advice).toBe("GC pauses / gc");
  });

  it("reads its prompt from a bundled file, and fails when the file is missing", () => {
    const withFile = bundle(
      pb().replace('prompt: "Why is {{ inputs.svc }} slow?"', "prompt_file: prompts/why.md"),
      {
        files: { "prompts/why.md": "Look at {{ inputs.svc }}" },
        allow: ["template-order"],
      },
    );
    const d = new Driver(withFile);
    d.start();
    d.drive();
    expect(d.effect().params.prompt).toBe("Look at api");

    const missing = new Driver({ ...withFile, files: {} });
    missing.start();
    missing.drive();
    expect(missing.run.error?.code).toBe("PB-TEMPLATE-UNDEFINED");
    expect(missing.run.error?.message).toContain("prompts/why.md");
  });

  it("fails with PB-AI-OUTPUT-MISSING when expected files are missing", () => {
    const d = new Driver(bundle(pb("expect_files: [out.md]"), { allow: ["template-order"] }));
    d.start();
    d.drive();
    d.answer({ text: "", missing_files: ["out.md"] });
    expect(d.run.error?.code).toBe("PB-AI-OUTPUT-MISSING");
    expect(d.run.error?.message).toBe("expected files are missing: out.md");
  });

  it("an ai step failing is not retried even with on_error retry (not retryable)", () => {
    const d = new Driver(bundle(pb("on_error: retry:3"), { allow: ["template-order"] }));
    d.start();
    d.drive();
    d.failEffect("GH-ERROR");
    expect(d.run.status).toBe("failed");
    expect(d.frame.attempt).toBe(1);
  });

  it("an idempotency_key makes an ai step retryable", () => {
    const d = new Driver(
      bundle(pb('on_error: retry:1\n        idempotency_key: "k"'), { allow: ["template-order"] }),
    );
    d.start();
    d.drive();
    d.failEffect("GH-ERROR");
    expect(d.run.status).toBe("running");
    expect(d.frame.attempt).toBe(2);
  });

  it("a bare ai step asks with defaults; an answer without text or scalar findings records empties", () => {
    const d = new Driver(
      bundle(yaml`
        apiVersion: playbook-bot/v1
        id: bare
        steps:
          - id: think
            type: ai
            prompt: hello
          - id: fin
            type: end
      `),
    );
    d.start();
    d.drive();
    expect(d.effect().params).toEqual({
      prompt: "hello",
      tools: [],
      scope: "read-only",
      expected_findings: [],
      expect_files: [],
    });
    d.answer({ "finding.cause": ["a", "b"] });
    expect(d.frame.findings).toEqual({});
    expect(d.frame.results.think?.outputs?.text).toBe("");
  });

  it("scope write asks for approval when no checkpoint passed before", () => {
    const d = new Driver(
      bundle(pb("scope: write"), { allow: ["template-order", "ai-write-unapproved"] }),
    );
    d.start();
    d.drive();
    expect(d.frame.phase).toBe("approval");
    expect(d.last.effects).toEqual([]);
    d.command("approve", MAINTAINER);
    d.drive();
    expect(d.effect().params.scope).toBe("write");
  });

  it("scope write after a passed checkpoint runs at once", () => {
    const before = `- id: ok
        type: checkpoint
        message: go?`;
    const d = new Driver(bundle(pb("scope: write", before), { allow: ["template-order"] }));
    d.start();
    d.drive();
    d.command("approve", WRITER);
    d.drive();
    expect(d.frame.phase).toBe("effect");
    expect(d.effect().params.scope).toBe("write");
  });
});
