import { afterEach, describe, expect, it } from "vitest";
import { cleanup, makeRepo, runIn, write } from "../../helpers/git-repo.js";
import { CHANGES, TRIAGE } from "./delegate-fixtures.js";

afterEach(cleanup);

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
