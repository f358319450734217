import { describe, expect, it } from "vitest";
import { Driver, MIN, READER, TRIAGER, bundle, yaml } from "./helpers.js";

const child = yaml`
  apiVersion: playbook-bot/v1
  id: changes
  inputs:
    ns: { type: string, required: true }
  steps:
    - id: deploys
      type: investigate
      description: "deploys to {{ inputs.ns }}"
      expected_findings: [recent_deploy]
    - id: done
      type: end
      conclusion: gathered
`;

/** A Triagent-style delegation: walk the child, then people pick the parent's branch. */
const parent = yaml`
  apiVersion: playbook-bot/v1
  id: triage
  entrypoint: sub
  nodes:
    sub:
      type: playbook
      playbook: changes
      mode: delegate
      with: { ns: shop }
      next:
        - { condition: a deploy broke it, label: rollback, goto: roll }
        - { condition: nothing changed, label: dig, goto: deeper }
    roll:
      type: end
      advice: "rolled back after {{ steps.sub.outputs.conclusion }} ({{ steps.sub.outputs.chosen }})"
    deeper:
      type: end
      advice: digging deeper
`;

function driver(): Driver {
  const d = new Driver(bundle(parent), [bundle(child, { hash: "child-hash" })]);
  d.start();
  d.drive();
  return d;
}

/** Walk the child to its end: the parent's step gets its turn again. */
function returnFromChild(d: Driver): void {
  expect(d.frame.playbook).toBe("changes");
  d.command("record", TRIAGER, "recent_deploy=true");
  d.drive();
}

describe("a delegate with prose branches", () => {
  it("waits for /choose after the child returns, shows the choices, then follows the chosen branch", () => {
    const d = driver();
    returnFromChild(d);
    expect(d.run.status).toBe("waiting");
    expect(d.run.error).toBeUndefined();
    expect(d.run.stack).toHaveLength(1);
    expect(d.frame).toMatchObject({ current: "sub", phase: "waiting", since: d.now.toISOString() });
    // the child's findings and conclusion are there to choose by
    expect(d.frame.findings).toEqual({ recent_deploy: true });
    expect(d.frame.results.sub).toMatchObject({
      status: "running",
      outputs: { conclusion: "gathered" },
    });
    const waiting = d.last.messages.filter((m) => m.kind === "waiting").map((m) => m.text);
    expect(waiting).toEqual([
      "**sub**: playbook **changes** returned (conclusion: gathered); its findings are recorded here.\n" +
        "Then choose: `/choose rollback` (a deploy broke it), `/choose dig` (nothing changed)",
    ]);
    expect(d.run.trace.at(-1)).toMatchObject({
      step: "sub",
      outcome: "changes returned; waiting for /choose",
    });

    d.tick(MIN);
    const wrong = d.command("choose", TRIAGER, "rolback");
    expect(wrong.changed).toBe(false);
    expect(wrong.reply).toEqual({
      outcome: "refused",
      reason: "choose one of: rollback, dig — did you mean 'rollback'?",
    });
    expect(d.command("choose", READER, "rollback").reply?.outcome).toBe("refused");
    const recorded = d.command("record", TRIAGER, "blast_radius=2");
    expect(recorded.reply).toEqual({ outcome: "accepted" });
    expect(d.frame).toMatchObject({ current: "sub", phase: "waiting" });

    const chosen = d.command("choose", TRIAGER, "rollback");
    expect(chosen.reply).toEqual({ outcome: "accepted" });
    expect(chosen.finished).toEqual([
      expect.objectContaining({ step: "sub", kind: "playbook", status: "completed", depth: 0 }),
    ]);
    expect(d.frame.current).toBe("roll");
    expect(d.frame.results.sub?.outputs).toEqual({ conclusion: "gathered", chosen: "rollback" });
    expect(d.frame.findings).toEqual({ recent_deploy: true, blast_radius: 2 });
    d.drive();
    expect(d.run.status).toBe("completed");
    expect(d.run.end?.advice).toBe("rolled back after gathered (rollback)");
  });

  it("does not take a /choose written while the child was still running", () => {
    const d = driver();
    const early = d.now.toISOString();
    d.tick(MIN);
    returnFromChild(d);
    const late = d.command("choose", TRIAGER, "dig", { createdAt: early });
    expect(late.changed).toBe(false);
    expect(late.reply?.outcome).toBe("ignored");
    expect(d.frame.current).toBe("sub");
    d.command("choose", TRIAGER, "dig");
    d.drive();
    expect(d.run.end?.advice).toBe("digging deeper");
  });

  it("refuses /choose on the parent while the child runs: the child's step is the one waiting", () => {
    const d = driver();
    const r = d.command("choose", TRIAGER, "rollback");
    expect(r.changed).toBe(false);
    expect(r.reply).toEqual({
      outcome: "refused",
      reason: "'deploys' has no branches to choose; record findings with /record",
    });
    expect(d.run.stack).toHaveLength(2);
  });

  it("still decides when: branches over the child's findings by itself", () => {
    const decided = yaml`
      apiVersion: playbook-bot/v1
      id: auto
      entrypoint: sub
      nodes:
        sub:
          type: playbook
          playbook: changes
          mode: delegate
          with: { ns: shop }
          next:
            - { when: findings.recent_deploy == true, goto: roll }
            - { default: fin }
        roll:
          type: end
          advice: rollback
        fin:
          type: end
    `;
    const d = new Driver(bundle(decided, { allow: ["finding-unknown"] }), [bundle(child)]);
    d.start();
    d.drive();
    returnFromChild(d);
    d.drive();
    expect(d.run.status).toBe("completed");
    expect(d.run.end?.advice).toBe("rollback");
    expect(d.all.flatMap((r) => r.messages).some((m) => m.text.includes("/choose"))).toBe(false);
  });
});
