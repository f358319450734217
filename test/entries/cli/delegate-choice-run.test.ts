import { afterEach, describe, expect, it } from "vitest";
import { cleanup, makeRepo, runIn, write } from "../../helpers/git-repo.js";

afterEach(cleanup);

const TRIAGE = `apiVersion: playbook-bot/v1
id: triage
name: Triage
description: Gathers recent changes in a delegate, then a person picks the branch.
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
    advice: Roll back the deploy.
  deeper:
    type: end
    advice: Dig deeper.
`;

const CHANGES = `apiVersion: playbook-bot/v1
id: changes
inputs:
  ns: { type: string, required: true }
steps:
  - id: deploys
    type: investigate
    expected_findings: [recent_deploy]
  - id: done
    type: end
    conclusion: gathered
`;

describe("run: a delegate with prose branches", () => {
  it("asks at the terminal which branch to take once the child has returned", async () => {
    const repo = makeRepo();
    write(repo, ".github/playbooks/triage.yaml", TRIAGE);
    write(repo, ".github/playbooks/changes.yaml", CHANGES);
    const r = await runIn(repo, "triage", [], {}, { answers: ["recent_deploy=true", "rollback"] });
    expect(r.questions).toEqual([
      "Findings for deploys (recent_deploy=…): ",
      "Choose for sub (rollback | dig): ",
    ]);
    expect(r.code).toBe(0);
    expect(r.out).toContain("Roll back the deploy.");
  });

  it("pauses (exit 4) when nobody answers the choice", async () => {
    const repo = makeRepo();
    write(repo, ".github/playbooks/triage.yaml", TRIAGE);
    write(repo, ".github/playbooks/changes.yaml", CHANGES);
    const r = await runIn(repo, "triage", [], {}, { answers: ["recent_deploy=true"] });
    expect(r.code).toBe(4);
    expect(r.out).toContain("paused at sub");
  });
});
