import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PlaybookBundle } from "../../../src/core/steps/types.js";
import { cleanup } from "../../helpers/git-repo.js";
import { caseNames, loadRunbooks, readCase, replayCase } from "./replay.js";

/**
 * The runbook spec's own replay cases (its `fixtures/cases/`): each incident opens an issue, the
 * runbooks' selectors pick one, its steps call the tools (answered with the case's recorded
 * responses) and the decision sidecar concludes. The spec's case runner expects the runbook and
 * the primary conclusion named in each manifest, and every required finding type among the
 * evidence.
 */
afterAll(cleanup);

describe.each([
  ["as copied (the spec's own readings stand in for its adapters)", false],
  ["beside the spec's adapters and evidence policy", true],
])("the runbook spec's replay cases, its runbooks %s", (_, withMetadata) => {
  let runbooks: Map<string, PlaybookBundle>;
  beforeAll(async () => {
    runbooks = await loadRunbooks(withMetadata);
  });

  it("are the seven the spec ships", () => {
    expect(caseNames()).toHaveLength(7);
  });

  it(`read the cache's TTL by ${withMetadata ? "its adapter's file" : "the spec's own reading"}`, () => {
    const steps = runbooks.get("cache_stale")!.playbook.steps as {
      suggested_calls?: { tool: string; findings?: { finding: string; when?: string }[] }[];
    }[];
    const redis = steps
      .flatMap((s) => s.suggested_calls ?? [])
      .find((c) => c.tool === "redis/inspect");
    // A case's when and an emit's requires are joined, each in parentheses, when translated.
    expect(redis?.findings?.find((f) => f.finding === "cache_ttl_positive")?.when).toBe(
      withMetadata
        ? "(result.exists == true) and (result.ttl_seconds > 0)"
        : "result.exists == true and result.ttl_seconds > 0",
    );
  });

  for (const name of caseNames()) {
    const c = readCase(name);
    it(`${name}: ${c.expected.runbook} concludes ${c.expected.primary_conclusion}`, async () => {
      const r = await replayCase(name, runbooks);
      expect(r.runbook).toBe(c.expected.runbook);
      expect(r.status).toBe("completed");
      expect(r.decision?.conclusion).toBe(c.expected.primary_conclusion);
      for (const finding of c.expected.required_finding_types)
        expect(r.findings, `finding ${finding}`).toHaveProperty(finding);
    });
  }
});
