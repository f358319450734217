import { describe, expect, it } from "vitest";
import type { InvestigateStep } from "../../../src/core/format/types.js";
import {
  applySeams,
  draftPlaybook,
  readSeams,
  type DraftResult,
} from "../../../src/core/systematise/index.js";
import { incidentEvidence } from "./fixtures.js";
import { expectPasses, runGoldenCases, stringsIn } from "./helpers.js";

type Ok = Extract<DraftResult, { ok: true }>;

function drafted(seams?: unknown): Ok {
  const d = draftPlaybook(incidentEvidence(), "checkout-502", seams === undefined ? {} : { seams });
  if (!d.ok) throw new Error(d.problems.map((p) => p.message).join("; "));
  return d;
}

const investigations = (d: Ok) =>
  (d.playbook.steps ?? [])
    .filter((s): s is InvestigateStep => s.type === "investigate")
    .map((s) => ({ id: s.id, findings: s.expected_findings ?? [] }));

// The incident records error_rate and failing_route, a note, db_connections and pool_exhausted
// before the choice 'rollback', then an approval, error_rate_after, and a merged pull request.
describe("seams an AI adapter proposes for a draft", () => {
  it("joins findings recorded apart into one investigation, with its notes and the choice it ends with", async () => {
    const d = drafted([
      {
        id: "diagnose",
        findings: ["error_rate", "failing_route", "db_connections", "pool_exhausted"],
      },
      { id: "verify", findings: ["error_rate_after"] },
    ]);
    expect(investigations(d)).toEqual([
      {
        id: "diagnose",
        findings: ["error_rate", "failing_route", "db_connections", "pool_exhausted"],
      },
      { id: "verify", findings: ["error_rate_after"] },
    ]);
    const diagnose = d.playbook.steps?.find((s) => s.id === "diagnose") as InvestigateStep;
    expect(diagnose.description).toContain("gateway dashboard");
    expect(diagnose.description).toContain("pool looks exhausted");
    expect(Array.isArray(diagnose.next) && diagnose.next.map((b) => b.label)).toEqual([
      "rollback",
      "other",
    ]);
    expect(d.summary).toContain(
      "Findings grouped into 2 investigations as the AI adapter proposed (the order of the issue made 3).",
    );
    // The golden cases replay the new shape: the way taken, and the way not taken.
    expect(d.playbook.tests?.[0]?.expect?.path?.slice(0, 3)).toEqual([
      "diagnose",
      "approve",
      "verify",
    ]);
    expectPasses(await runGoldenCases(d.playbook));
  });

  it("splits findings recorded together", async () => {
    const d = drafted({
      investigations: [
        { findings: ["error_rate"] },
        { findings: ["failing_route"] },
        { findings: ["db_connections", "pool_exhausted"] },
        { findings: ["error_rate_after"] },
      ],
    });
    expect(investigations(d).map((i) => i.id)).toEqual([
      "check-error_rate",
      "check-failing_route",
      "check-db_connections",
      "check-error_rate_after",
    ]);
    expectPasses(await runGoldenCases(d.playbook));
  });

  it("says when the proposal is the draft's own seams", () => {
    const d = drafted([
      { findings: ["error_rate", "failing_route"] },
      { findings: ["DB_CONNECTIONS", "pool_exhausted"] },
      { findings: ["error_rate_after"] },
    ]);
    expect(d.yaml).toBe(drafted().yaml);
    expect(d.summary).toContain("The AI adapter's grouping of findings is the draft's own.");
  });

  it.each([
    [
      "reordered findings",
      [
        { findings: ["failing_route", "error_rate"] },
        { findings: ["db_connections", "pool_exhausted"] },
        { findings: ["error_rate_after"] },
      ],
      "investigation 1 names 'failing_route' where the issue shows 'error_rate': findings keep their order",
    ],
    [
      "a group past a choice",
      [
        { findings: ["error_rate", "failing_route"] },
        { findings: ["db_connections"] },
        { findings: ["pool_exhausted", "error_rate_after"] },
      ],
      "investigation 3 goes on past the choice 'rollback'; a choice ends an investigation",
    ],
    [
      "a finding left out",
      [
        { findings: ["error_rate", "failing_route"] },
        { findings: ["db_connections", "pool_exhausted"] },
      ],
      "it leaves out the finding 'error_rate_after'",
    ],
    [
      "a finding the issue does not show",
      [
        { findings: ["error_rate", "failing_route"] },
        { findings: ["db_connections", "pool_exhausted"] },
        { findings: ["error_rate_after"] },
        { findings: ["ghost"] },
      ],
      "investigation 4 names 'ghost', which the issue does not show after what came before",
    ],
    ["no list", "check everything", "it is not a list of investigations"],
    ["an empty list", [], "it lists no investigation"],
    ["a group without findings", [{ id: "x", findings: [] }], "investigation 1 names no findings"],
    [
      "a finding that is not a key",
      [{ findings: [{ k: 1 }] }],
      "names a finding that is not a key",
    ],
  ])("keeps the draft's own seams for %s, and says why", (_, seams, why) => {
    const d = drafted(seams);
    expect(d.yaml).toBe(drafted().yaml);
    expect(d.summary.join("\n")).toContain(`The AI adapter's grouping of findings was not used (`);
    expect(d.summary.join("\n")).toContain(why);
  });

  it("refuses a group that joins findings across an approval or a pull request", () => {
    const blocks = [
      { kind: "investigation" as const, notes: [], findings: new Map([["a", 1]]) },
      { kind: "approval" as const, notes: [] },
      { kind: "investigation" as const, notes: [], findings: new Map([["b", 2]]) },
      { kind: "pr" as const, notes: [] },
      { kind: "investigation" as const, notes: [], findings: new Map([["c", 3]]) },
    ];
    expect(applySeams(blocks, [{ findings: ["a", "b"] }, { findings: ["c"] }])).toEqual({
      ok: false,
      reason: "investigation 1 joins findings across an approval",
    });
    expect(applySeams(blocks, [{ findings: ["a"] }, { findings: ["b", "c"] }])).toEqual({
      ok: false,
      reason: "investigation 2 joins findings across a pull request",
    });
    const bare = [
      { kind: "investigation" as const, notes: [], findings: new Map([["a", 1]]) },
      {
        kind: "investigation" as const,
        notes: [],
        findings: new Map<string, number>(),
        choice: { label: "scale" },
      },
      { kind: "investigation" as const, notes: [], findings: new Map([["b", 2]]) },
    ];
    expect(applySeams(bare, [{ findings: ["a", "b"] }])).toEqual({
      ok: false,
      reason: "investigation 1 joins findings across the choice 'scale'",
    });
    const ok = applySeams(bare, [{ findings: ["a"] }, { findings: ["b"] }]);
    expect(ok.ok && ok.blocks).toHaveLength(3);
  });

  it("makes the proposed ids plain, unique ids of the format, never templates", () => {
    const d = drafted([
      { id: "{{ secrets.TOKEN }}", findings: ["error_rate", "failing_route"] },
      { id: "done", findings: ["db_connections", "pool_exhausted"] },
      { id: "done", findings: ["error_rate_after"] },
    ]);
    const ids = investigations(d).map((i) => i.id);
    expect(ids).toEqual(["secrets_TOKEN", "done-2", "done-3"]);
    expect(stringsIn(d.playbook).some((s) => s.includes("secrets.TOKEN"))).toBe(false);
  });

  it("reads no more than a draft can hold", () => {
    const many = Array.from({ length: 101 }, (_, i) => ({ findings: [`k${i}`] }));
    expect(readSeams(many)).toBe("it lists more than 100 investigations");
    const wide = [{ findings: Array.from({ length: 2001 }, (_, i) => `k${i}`) }];
    expect(readSeams(wide)).toBe("it names more than 2000 findings");
    expect(readSeams([{ id: 7, findings: ["a"] }])).toEqual([{ findings: ["a"] }]);
  });
});
