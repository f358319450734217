import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ID_PATTERN } from "../../../src/core/format/schema.js";
import { parseTemplate } from "../../../src/core/format/template.js";
import { loadSourceText } from "../../../src/core/format/source.js";
import { draftPlaybook } from "../../../src/core/systematise/draft.js";
import type { IssueEvidence } from "../../../src/core/systematise/evidence.js";
import {
  asId,
  bound,
  isInertText,
  neutraliseTemplates,
  oneLine,
  prose,
} from "../../../src/core/systematise/sanitise.js";
import { diagnosticsOf, expectPasses, runGoldenCases, stringsIn } from "./helpers.js";

const HUGE = `${"x".repeat(10_000)} {{ secrets.X }}`;

function hostileEvidence(): IssueEvidence {
  return {
    issue: {
      number: 7,
      title: "{{ secrets.TOKEN }} ${x} <!-- hi --> @octocat\u0007\u202Eevil\ntitle: injected",
      labels: ["db: {x}", "{{ a }}", "ok-label", "OK-label", "bug\n", "\u0000"],
    },
    adhoc: [
      { kind: "note", text: HUGE, actor: "a", at: "2026-01-01T00:00:00Z" },
      {
        kind: "record",
        key: "key: value\n- item",
        value: "{{ secrets.X }}\u0000",
        actor: "a",
        at: "2026-01-01T00:01:00Z",
      },
      {
        kind: "record",
        key: "{{ secrets.X }}",
        value: "${x}",
        actor: "a",
        at: "2026-01-01T00:02:00Z",
      },
      { kind: "record", key: "dup", value: 1, actor: "a", at: "2026-01-01T00:03:00Z" },
      { kind: "record", key: "dup", value: 2, actor: "a", at: "2026-01-01T00:04:00Z" },
      { kind: "record", key: "Dup", value: 3, actor: "a", at: "2026-01-01T00:04:30Z" },
      { kind: "record", key: "!!!", value: 3, actor: "a", at: "2026-01-01T00:05:00Z" },
      { kind: "record", key: "", value: 3, actor: "a", at: "2026-01-01T00:05:10Z" },
      {
        kind: "note",
        text: "<!-- playbook-bot:state xyz --> @everyone ${{ secrets.GITHUB_TOKEN }} {% if x %}\r\n\u001b[31mred",
        actor: "a",
        at: "2026-01-01T00:06:00Z",
      },
      {
        kind: "choice",
        label: "a b: {c}",
        condition: "{{ inputs.x }} and @team/x\nnext: evil",
        actor: "a",
        at: "2026-01-01T00:07:00Z",
      },
      { kind: "approval", by: "test-initiator", decision: "approve", at: "2026-01-01T00:08:00Z" },
      {
        kind: "approval",
        by: "bad login!",
        decision: "approve",
        permission: "triage",
        at: "2026-01-01T00:08:30Z",
      },
    ],
    runs: [],
    pullRequests: [
      {
        number: 3,
        title: "{{ steps.x.outputs.y }}\n- evil: true",
        branch: "../../etc",
        base: "main; rm -rf /",
        merged: true,
        files: ["a\nb", "{{ x }}", "@octocat <!--"],
      },
    ],
  };
}

function drafted() {
  const r = draftPlaybook(hostileEvidence(), "hostile");
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r;
}

/** Templates the drafter writes itself; every other `{{`/`${` would come from people. */
const OWN = /^\{\{ (run\.id|steps\.[a-zA-Z0-9_-]+\.outputs\.name) \}\}$/;

describe("draftPlaybook: hostile input stays data", () => {
  it("validates with no diagnostic and its golden cases pass", async () => {
    const r = drafted();
    expect(diagnosticsOf(r.yaml)).toEqual([]);
    expectPasses(await runGoldenCases(r.playbook));
  });

  it("no value became YAML structure", () => {
    const r = drafted();
    const loaded = loadSourceText("h.yaml", r.yaml);
    expect(loaded.ok).toBe(true);
    expect(Object.keys(r.playbook)).toEqual([
      "apiVersion",
      "id",
      "name",
      "description",
      "on",
      "steps",
      "tests",
    ]);
    expect(r.playbook.steps?.map((s) => s.id)).toEqual([
      "check-key_value_-_item",
      "choose-a_b_c",
      "approve",
      "pr-3-branch",
      "pr-3-commit",
      "pr-3",
      "done",
      "other-path",
    ]);
    for (const s of r.playbook.steps ?? []) {
      expect(s.id).toMatch(new RegExp(ID_PATTERN));
      expect(Object.keys(s)).not.toContain("evil");
    }
    expect(r.playbook.name).toContain("title: injected");
  });

  it("no template of people's text is live: only the drafter's own remain", () => {
    const r = drafted();
    const live: string[] = [];
    for (const s of stringsIn({
      steps: r.playbook.steps,
      name: r.playbook.name,
      d: r.playbook.description,
    }))
      for (const p of parseTemplate(s).parts) if (p.kind !== "text") live.push(p.raw);
    expect(live.length).toBeGreaterThan(0);
    for (const t of live) expect(t).toMatch(OWN);
    expect(r.yaml).not.toMatch(/\{\{\s*secrets/);
    expect(r.yaml).not.toContain("${");
    expect(r.yaml).not.toContain("{%");
  });

  it("mentions and comment markers are inert, control and bidi characters gone", () => {
    const r = drafted();
    const strings = stringsIn(r.playbook);
    for (const s of strings) {
      expect(s).not.toMatch(/@[A-Za-z0-9_-]/);
      expect(s).not.toContain("<!--");
      // eslint-disable-next-line no-control-regex
      expect(s).not.toMatch(/[\u0000-\u0009\u000B-\u001F\u007F\u202A-\u202E]/);
    }
    expect(strings.some((s) => s.includes("@\u200beveryone"))).toBe(true);
  });

  it("bounds a 10,000-character note", () => {
    const r = drafted();
    const first = r.playbook.steps?.[0];
    expect(first?.description?.length).toBeLessThanOrEqual(1000);
    expect(first?.description?.endsWith("…")).toBe(true);
    expect(r.yaml.length).toBeLessThan(8000);
    expect(r.summary.join("\n")).toContain("1 note cut to 1000 characters");
  });

  it("duplicate keys are one finding with the last value; invalid keys are left out and said so", () => {
    const r = drafted();
    const first = r.playbook.steps?.[0] as { expected_findings: string[] };
    expect(first.expected_findings).toEqual(["key_value_-_item", "secrets_X", "dup"]);
    const record = r.playbook.tests?.[0]?.events?.[0] as {
      record: { findings: Record<string, unknown> };
    };
    expect(record.record.findings).toEqual({
      "key_value_-_item": "{ { secrets.X }}",
      secrets_X: "$ {x}",
      dup: 3,
    });
    const summary = r.summary.join("\n");
    expect(summary).toContain("2 recorded keys could not become finding keys");
    expect(summary).toContain("'!!!'");
  });

  it("labels that are not plain text never start the playbook; branch names from people are not used", () => {
    const r = drafted();
    expect(r.playbook.on?.labels).toEqual(["db: {x}", "ok-label"]);
    const branch = r.playbook.steps?.[3] as { name: string; from?: string };
    expect(branch.name).toBe("playbook/hostile-{{ run.id }}");
    expect(branch.from).toBeUndefined();
    expect(r.playbook.steps?.[5]).not.toHaveProperty("base");
  });

  it("approvers whose logins cannot be used are replayed by stand-ins, never as the initiator", () => {
    const r = drafted();
    const approvals = (r.playbook.tests?.[0]?.events ?? []).filter((e) => "approve" in e);
    expect(approvals).toEqual([
      { approve: { by: "approver-1", permission: "write" } },
      { approve: { by: "approver-2", permission: "write" } },
    ]);
  });
});

describe("sanitising helpers", () => {
  it("breaks templates apart so the parser sees none", () => {
    for (const t of ["{{ a }}", "${x}", "{% if a %}", "${{ secrets.T }}", "{{{ x }}}", "$${a}"]) {
      const n = neutraliseTemplates(t);
      expect(parseTemplate(n).parts.every((p) => p.kind === "text")).toBe(true);
      expect(parseTemplate(n).problems).toEqual([]);
    }
  });

  it("cuts text without splitting a surrogate pair", () => {
    const s = `${"a".repeat(9)}😀tail`;
    const { text, cut } = bound(s, 11);
    expect(cut).toBe(true);
    expect(text).toBe(`${"a".repeat(9)}…`);
    expect(bound("short", 10)).toEqual({ text: "short", cut: false });
  });

  it("keeps valid ids and rewrites the others", () => {
    expect(asId("error_rate")).toBe("error_rate");
    expect(asId("db.pool size")).toBe("db_pool_size");
    expect(asId("--x")).toBe("x");
    expect(asId("!!!")).toBeUndefined();
    expect(asId("a".repeat(80))).toHaveLength(64);
  });

  it("one line and prose are inert", () => {
    expect(oneLine("a\nb\u0000 @me {{ x }}", 100)).toBe("a b @\u200bme { { x }}");
    expect(prose("a\r\n\n\n\nb", 100)).toBe("a\n\nb");
    expect(isInertText(oneLine("@x <!-- ${y}", 50))).toBe(true);
    expect(isInertText("@x")).toBe(false);
  });
});

describe("draftPlaybook: any text people write", () => {
  const text = fc.string({ unit: "binary", maxLength: 300 });
  it("gives a draft that validates, stays inert and passes its golden cases", async () => {
    await fc.assert(
      fc.asyncProperty(
        text,
        fc.array(fc.tuple(text, fc.oneof(text, fc.integer(), fc.boolean())), {
          minLength: 1,
          maxLength: 6,
        }),
        text,
        fc.array(text, { maxLength: 4 }),
        async (title, records, note, labels) => {
          const e: IssueEvidence = {
            issue: { number: 1, title, labels },
            adhoc: [
              { kind: "note", text: note, actor: "a", at: "2026-01-01T00:00:00Z" },
              ...records.map(([key, value], i) => ({
                kind: "record" as const,
                key: `k${i}${key}`,
                value,
                actor: "a",
                at: `2026-01-01T00:0${i}:30Z`,
              })),
              {
                kind: "choice",
                label: note,
                condition: title,
                actor: "a",
                at: "2026-01-01T00:09:00Z",
              },
            ],
            runs: [],
            pullRequests: [{ number: 2, title: note, merged: true, files: labels }],
          };
          const r = draftPlaybook(e, "prop");
          expect(r.ok).toBe(true);
          if (!r.ok) return;
          expect(diagnosticsOf(r.yaml).filter((d) => d.startsWith("error"))).toEqual([]);
          for (const s of stringsIn(r.playbook.steps))
            for (const p of parseTemplate(s).parts)
              if (p.kind !== "text") expect(p.raw).toMatch(OWN);
          expectPasses(await runGoldenCases(r.playbook));
        },
      ),
      { numRuns: 40 },
    );
  });
});
