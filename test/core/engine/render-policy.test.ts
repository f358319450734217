import { describe, expect, it } from "vitest";
import { playbookError, isErrorCode } from "../../../src/core/engine/errors.js";
import {
  approvalRefusal,
  atLeast,
  backoffMs,
  describeApprovers,
  durationMs,
  errorAction,
  permissionRank,
  tally,
} from "../../../src/core/engine/policy.js";
import { inert, renderTemplate, runResolver } from "../../../src/core/engine/render.js";
import { capValue, makeRunId, pushBounded, type RunState } from "../../../src/core/engine/state.js";
import type { StepBase } from "../../../src/core/format/types.js";

function runWith(partial: Partial<RunState> = {}): RunState {
  return {
    v: 1,
    id: "r1",
    status: "running",
    initiator: "alice",
    startedAt: "2026-01-01T00:00:00.000Z",
    updatedAt: "2026-01-01T00:00:00.000Z",
    seq: 1,
    steps: 0,
    stack: [
      {
        playbook: "pb",
        hash: "h",
        inputs: { svc: "api", list: null },
        current: "a",
        phase: "pending",
        since: "2026-01-01T00:00:00.000Z",
        attempt: 1,
        attempts: {},
        results: {
          a: { status: "completed", attempt: 1, at: "x", outputs: { url: "u", tags: ["x", "y"] } },
        },
        findings: { n: 3 },
        votes: [],
      },
    ],
    context: {
      issue: { number: 5, title: "@bob broke it" },
      repo: { owner: "o" },
      alert: { severity: "high", labels: { env: "prod" } },
      url: "https://run",
    },
    recentEvents: [],
    trace: [],
    traceDropped: 0,
    ...partial,
  };
}

describe("render", () => {
  const resolve = runResolver(runWith());
  it("resolves inputs, findings, step outputs, run, issue, repo and alert values", () => {
    const r = renderTemplate(
      "{{ inputs.svc }} {{ findings.n }} {{ steps.a.outputs.url }} {{ steps.a.outputs.tags }} {{ run.id }} {{ run.initiator }} {{ run.playbook }} {{ run.url }} {{ issue.number }} {{ repo.owner }} {{ alert.severity }} {{ alert.labels.env }} [{{ inputs.list }}]",
      resolve,
    );
    expect(r).toEqual({ ok: true, value: "api 3 u x, y r1 alice pb https://run 5 o high prod []" });
  });

  it("has no value for unknown or malformed paths", () => {
    for (const path of [
      ["inputs", "nope"],
      ["inputs", "svc", "x"],
      ["findings", "zz"],
      ["steps", "a", "outputs"],
      ["steps", "a", "result", "url"],
      ["steps", "zz", "outputs", "url"],
      ["steps", "a", "outputs", "zz"],
      ["run", "nope"],
      ["run"],
      ["issue", "author"],
      ["repo"],
      ["alert", "labels"],
      ["alert", "nope"],
      ["alert", "severity", "x"],
      ["alert", "labels", "zz"],
      ["alert", "labels", "env", "x"],
      ["other", "x"],
    ])
      expect(resolve(path)).toBeUndefined();
    expect(runResolver(runWith({ context: {} }))(["alert", "severity"])).toBeUndefined();
    expect(runResolver(runWith({ context: {} }))(["issue", "number"])).toBeUndefined();
  });

  it("a missing value or a malformed template is PB-TEMPLATE-UNDEFINED", () => {
    const missing = renderTemplate("x {{ inputs.nope }}", resolve);
    expect(missing.ok).toBe(false);
    if (!missing.ok) expect(missing.error).toMatchObject({ code: "PB-TEMPLATE-UNDEFINED" });
    const bad = renderTemplate("x {{ inputs.svc", resolve);
    expect(bad.ok || bad.error.code).toBe("PB-TEMPLATE-UNDEFINED");
  });

  it("makes text inert but passes values through for other uses", () => {
    expect(renderTemplate("{{ issue.title }}", resolve)).toEqual({
      ok: true,
      value: "@\u200bbob broke it",
    });
    expect(renderTemplate("{{ issue.title }}", resolve, "value")).toEqual({
      ok: true,
      value: "@bob broke it",
    });
    expect(inert("<!-- state --> --!> a@b @ c")).toBe("&lt;!-- state --&gt; --!&gt; a@\u200bb @ c");
  });

  it("checks branch names, paths and labels", () => {
    const r = (src: string, use: "branch" | "path" | "label") => {
      const out = renderTemplate(src, resolve, use);
      return out.ok ? "ok" : out.error.code;
    };
    expect(r("fix/{{ inputs.svc }}", "branch")).toBe("ok");
    expect(r("fix/a b", "branch")).toBe("PB-TEMPLATE-UNSAFE");
    expect(r("a/../b", "path")).toBe("PB-TEMPLATE-UNSAFE");
    expect(r("docs/{{ inputs.svc }}.md", "path")).toBe("ok");
    expect(r(" ", "label")).toBe("PB-TEMPLATE-UNSAFE");
    expect(r("a\nb", "label")).toBe("PB-TEMPLATE-UNSAFE");
    expect(r("x".repeat(51), "label")).toBe("PB-TEMPLATE-UNSAFE");
    expect(r("bug", "label")).toBe("ok");
  });
});

describe("policy", () => {
  it("checks numbers: an issue, pull request or comment number", () => {
    const resolve = runResolver(runWith());
    expect(renderTemplate("{{ issue.number }}", resolve, "number")).toEqual({
      ok: true,
      value: "5",
    });
    for (const bad of ["0", "-3", "1.5", "12abc", "99999999999999999"])
      expect(renderTemplate(bad, resolve, "number")).toMatchObject({
        ok: false,
        error: {
          code: "PB-TEMPLATE-UNSAFE",
          message: expect.stringContaining("positive whole number"),
        },
      });
  });

  it("reads an item's fields (an object item is JSON text) and the run's date", () => {
    const run = runWith();
    const frame = run.stack[0] as RunState["stack"][number];
    frame.item = JSON.stringify({ commentId: 101, author: { login: "lee" } });
    const r = runResolver(run);
    expect(r(["item", "commentId"])).toBe(101);
    expect(r(["item", "author"])).toBe('{"login":"lee"}');
    expect(r(["item", "missing"])).toBeUndefined();
    expect(r(["run", "date"])).toBe("2026-01-01");
  });

  it("ranks permissions", () => {
    expect(permissionRank(undefined)).toBe(-1);
    expect(permissionRank("read")).toBeLessThan(permissionRank("admin"));
    expect(atLeast({ login: "x", permission: "maintain" }, "write")).toBe(true);
    expect(atLeast({ login: "x" }, "read")).toBe(false);
  });

  it("describes approvers", () => {
    expect(describeApprovers()).toBe("people with write access or more");
    expect(describeApprovers({ users: ["a", "b"], teams: ["t"], permission: "admin" })).toBe(
      "@a, @b or members of t or people with admin access or more",
    );
  });

  it("refuses bots, the initiator (case-insensitively) and people outside the policy", () => {
    expect(approvalRefusal({ login: "b", bot: true, permission: "admin" }, {}, "alice")).toBe(
      "bots cannot approve",
    );
    expect(approvalRefusal({ login: "ALICE", permission: "admin" }, {}, "alice")).toContain(
      "started this run",
    );
    expect(
      approvalRefusal({ login: "ALICE", permission: "admin" }, { allow_initiator: true }, "alice"),
    ).toBeUndefined();
    expect(
      approvalRefusal({ login: "x", permission: "admin" }, { users: ["y"] }, "alice"),
    ).toContain("may not approve");
    expect(
      approvalRefusal({ login: "x" }, { users: ["y"], permission: "read" }, "alice"),
    ).toContain("may not approve");
    expect(
      approvalRefusal(
        { login: "x", permission: "read" },
        { users: ["y"], permission: "read" },
        "alice",
      ),
    ).toBeUndefined();
    expect(
      approvalRefusal({ login: "x", teams: ["org/ops"] }, { teams: ["ops"] }, "alice"),
    ).toBeUndefined();
  });

  it("tallies each person's last vote", () => {
    const v = (user: string, decision: "approve" | "reject") => ({ user, decision, at: "t" });
    expect(
      tally([v("a", "approve"), v("A", "approve"), v("b", "approve")]).approvals.map((x) => x.user),
    ).toEqual(["A", "b"]);
    expect(tally([v("a", "reject"), v("a", "approve")])).toEqual({
      approvals: [v("a", "approve")],
    });
    expect(tally([v("a", "approve"), v("a", "reject")]).rejection?.user).toBe("a");
  });

  it("chooses the error action by policy and code", () => {
    const step = (on_error?: StepBase["on_error"]): StepBase => ({
      id: "s",
      type: "comment",
      ...(on_error ? { on_error } : {}),
    });
    const err = playbookError("GH-ERROR", "x");
    expect(errorAction(step(), err)).toEqual({ action: "fail" });
    expect(errorAction(step("continue"), err)).toEqual({ action: "continue" });
    expect(errorAction(step("ignore"), err)).toEqual({ action: "ignore" });
    expect(errorAction(step("retry:4"), err)).toEqual({ action: "retry", max: 4 });
    expect(errorAction(step("bogus"), err)).toEqual({ action: "fail" });
    expect(errorAction(step({ "GH-ERROR": "continue", default: "retry:1" }), err)).toEqual({
      action: "continue",
    });
    expect(errorAction(step({ default: "retry:1" }), err)).toEqual({ action: "retry", max: 1 });
    expect(errorAction(step({ "GH-CONFLICT": "ignore" }), err)).toEqual({ action: "fail" });
  });

  it("backs off exponentially up to ten minutes and parses durations", () => {
    expect([0, 1, 2, 3].map(backoffMs)).toEqual([2000, 2000, 4000, 8000]);
    expect(backoffMs(30)).toBe(600_000);
    expect(durationMs("1h30m")).toBe(90 * 60_000);
    expect(durationMs("2d")).toBe(2 * 86_400_000);
    expect(durationMs("45s")).toBe(45_000);
    expect(durationMs("soon")).toBe(0);
  });
});

describe("errors and state helpers", () => {
  it("builds catalogued errors and caps long causes", () => {
    const e = playbookError("GH-ERROR", "m", "c".repeat(600));
    expect(e.guidance).toBe("GitHub answered with an error; /retry later.");
    expect(e.cause).toHaveLength(500);
    expect(e.cause?.endsWith("...")).toBe(true);
    expect(playbookError("GH-ERROR", "m", "short").cause).toBe("short");
    expect(isErrorCode("PB-TIMEOUT")).toBe(true);
    expect(isErrorCode("toString")).toBe(false);
  });

  it("caps values, bounds lists and names runs", () => {
    expect(capValue("x".repeat(2000))).toHaveLength(1024);
    expect(capValue(5)).toBe(5);
    const list = [1, 2, 3];
    expect(pushBounded(list, 4, 3)).toBe(1);
    expect(list).toEqual([2, 3, 4]);
    expect(pushBounded(list, 5, 10)).toBe(0);
    expect(makeRunId(new Date("2026-12-31T23:04:00Z"), 7)).toBe("20261231-2304-007");
  });
});
