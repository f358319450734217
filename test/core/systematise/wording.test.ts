import { describe, expect, it } from "vitest";
import { draftPlaybook } from "../../../src/core/systematise/draft.js";
import { applyWording, type Draft } from "../../../src/core/systematise/wording.js";
import { adhocSignature, signatureParts, similar } from "../../../src/core/systematise/index.js";
import type { IssueEvidence } from "../../../src/core/systematise/evidence.js";
import { incidentEvidence } from "./fixtures.js";
import { diagnosticsOf, expectPasses, runGoldenCases } from "./helpers.js";

function draft(): Draft {
  const r = draftPlaybook(incidentEvidence(), "checkout-502");
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r;
}

describe("applyWording", () => {
  it("changes the name, the description and steps' descriptions, and nothing else", async () => {
    const d = draft();
    const w = applyWording(d, {
      name: "Checkout 502s after a deploy",
      description: "Triage of checkout 502s caused by a database pool change.",
      steps: {
        "check-error_rate": {
          description: "Read the gateway dashboard: the error rate and the failing route.",
        },
        approve: { description: "A maintainer approves the rollback." },
      },
    });
    expect(w.playbook.name).toBe("Checkout 502s after a deploy");
    expect(w.playbook.description).toBe(
      "Triage of checkout 502s caused by a database pool change.",
    );
    expect(w.playbook.steps?.[0]?.description).toBe(
      "Read the gateway dashboard: the error rate and the failing route.",
    );
    expect(w.playbook.steps?.[2]?.description).toBe("A maintainer approves the rollback.");
    const strip = (x: Draft) =>
      JSON.stringify({
        ...x.playbook,
        name: 0,
        description: 0,
        steps: x.playbook.steps?.map((s) => ({ ...s, description: 0 })),
      });
    expect(strip(w)).toBe(strip(d));
    expect(w.yaml).not.toBe(d.yaml);
    expect(w.yaml).toContain("name: Checkout 502s after a deploy");
    expect(w.summary.at(-1)).toBe(
      "Reworded: name, description, check-error_rate.description, approve.description.",
    );
    expect(diagnosticsOf(w.yaml)).toEqual([]);
    expectPasses(await runGoldenCases(w.playbook));
  });

  it("never changes structure: other fields, unknown steps and other step fields are ignored", () => {
    const d = draft();
    const w = applyWording(d, {
      steps: {
        approve: { description: "Approve.", type: "end", approvers: {} } as never,
        "no-such-step": { description: "x" },
        __proto__: { description: "x" },
      },
      id: "other",
      tests: [],
    } as never);
    expect(w.playbook.id).toBe("checkout-502");
    expect(w.playbook.tests).toEqual(d.playbook.tests);
    expect(w.playbook.steps?.[2]).toMatchObject({
      type: "checkpoint",
      description: "Approve.",
      approvers: { permission: "maintain", count: 2 },
    });
    expect(w.summary.at(-1)).toMatch(/ignored: no-such-step/);
    expect(({} as Record<string, unknown>).description).toBeUndefined();
  });

  it("sanitises and bounds the words: templates, mentions, markers, control characters, length", () => {
    const d = draft();
    const w = applyWording(d, {
      name: "{{ secrets.TOKEN }}\nname: x @team",
      steps: { done: { description: `<!-- playbook-bot:state --> \${x} ${"y".repeat(5000)}` } },
    });
    expect(w.playbook.name).toBe("{ { secrets.TOKEN }} name: x @\u200bteam");
    const done = w.playbook.steps?.find((s) => s.id === "done");
    expect(done?.description?.startsWith("&lt;!-- playbook-bot:state --&gt; $ {x} yyy")).toBe(true);
    expect(done?.description?.length).toBeLessThanOrEqual(2000);
    expect(diagnosticsOf(w.yaml)).toEqual([]);
  });

  it("keeps the original when the wording is missing, empty or changes nothing", () => {
    const d = draft();
    for (const wording of [
      undefined,
      {},
      { name: "   " },
      { name: d.playbook.name },
      "words" as never,
    ]) {
      const w = applyWording(d, wording);
      expect(w.yaml).toBe(d.yaml);
      expect(w.playbook).toBe(d.playbook);
      expect(w.summary.length).toBe(d.summary.length + 1);
    }
  });

  it("keeps the original when the reworded draft would not validate", () => {
    const d = draft();
    // A draft that is valid only with a known playbook: the locked id refuses it once known.
    const w = applyWording(
      d,
      { name: "New name" },
      {
        known: [
          {
            id: "checkout-502",
            locked: true,
            playbook: {
              apiVersion: "playbook-bot/v1",
              id: "checkout-502",
              steps: [{ id: "e", type: "end" }],
            },
          },
        ],
      },
    );
    expect(w.playbook).toBe(d.playbook);
    expect(w.summary.at(-1)).toMatch(
      /^The suggested wording was not used: the draft would not validate \(.*set-locked-id/,
    );
  });
});

describe("adhocSignature and similar", () => {
  const issue = (labels: string[], keys: string[]): IssueEvidence => ({
    issue: { number: 1, title: "t", labels },
    adhoc: keys.map((key, i) => ({
      kind: "record" as const,
      key,
      value: i,
      actor: "a",
      at: "2026-01-01T00:00:00Z",
    })),
    runs: [],
    pullRequests: [],
  });

  it("is the sorted, de-duplicated labels and recorded keys, generic labels left out", () => {
    const e = issue(
      ["Database", "bug", "checkout", "severity:high"],
      ["pool_size", "error_rate", "Error_Rate", "!!!"],
    );
    expect(adhocSignature(e)).toBe("labels=checkout,database;findings=error_rate,pool_size");
    expect(signatureParts(e)).toEqual({
      labels: ["checkout", "database"],
      findings: ["error_rate", "pool_size"],
    });
  });

  it("is the same whatever the order, case and values, and different when the work differs", () => {
    const a = issue(["checkout", "database"], ["error_rate", "pool_size"]);
    const b = issue(["database", "Checkout"], ["pool_size", "ERROR_RATE", "error_rate"]);
    expect(adhocSignature(a)).toBe(adhocSignature(b));
    expect(adhocSignature(issue(["database"], ["error_rate", "pool_size"]))).not.toBe(
      adhocSignature(a),
    );
    expect(adhocSignature(issue(["checkout", "database"], ["error_rate"]))).not.toBe(
      adhocSignature(a),
    );
  });

  it("escapes the key's separators in labels", () => {
    expect(adhocSignature(issue(["a,b;c=d%"], ["k"]))).toBe("labels=a%2cb%3bc%3dd%25;findings=k");
  });

  it("similar: the same labels and mostly the same recorded keys, from evidence or keys", () => {
    const a = issue(["database"], ["error_rate", "pool_size", "db_connections"]);
    const b = issue(["database"], ["error_rate", "pool_size", "db_connections", "replica_lag"]);
    const c = issue(["database"], ["disk_free"]);
    const d = issue(["database", "checkout"], ["error_rate", "pool_size", "db_connections"]);
    expect(similar(a, b)).toBe(true);
    expect(similar(adhocSignature(a), adhocSignature(b))).toBe(true);
    expect(similar(a, c)).toBe(false);
    expect(similar(a, d)).toBe(false);
    expect(similar(a, d, { labels: 0.5 })).toBe(true);
    expect(similar(a, b, { findings: 1 })).toBe(false);
    expect(similar(issue(["database"], []), issue(["database"], []))).toBe(false);
  });
});
