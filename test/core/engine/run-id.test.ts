import { issueRunToken } from "../../../src/runtime/run-service/controller.js";
import { describe, expect, it } from "vitest";
import { start, type StartRequest } from "../../../src/core/engine/engine.js";
import { makeRunId, tokenChars, type RunState } from "../../../src/core/engine/state.js";
import { validateSource } from "../../../src/core/rules/validate.js";
import { parseRunState } from "../../../src/runtime/state-codec.js";
import { tinyBundle } from "../../runtime/state/fixtures.js";
import { Driver, bundle, yaml } from "./helpers.js";

const NOW = new Date("2026-11-21T23:04:59Z");

function runOf(extra: Partial<StartRequest>): RunState {
  const r = start(
    {
      bundle: tinyBundle(),
      inputs: {},
      initiator: { login: "alice" },
      eventId: "delivery-1",
      ...extra,
    },
    { now: NOW, playbooks: () => undefined },
  );
  if (!r.ok) throw new Error(r.error.message);
  return r.result.run;
}

describe("run ids", () => {
  it("are the date and time, then a token kept to [a-z0-9-]", () => {
    expect(makeRunId(NOW, 7)).toBe("20261121-2304-007");
    expect(makeRunId(NOW, "42-k3f9q")).toBe("20261121-2304-42-k3f9q");
    expect(makeRunId(NOW, "K3F9QZ")).toBe("20261121-2304-k3f9qz");
    expect(makeRunId(NOW, "../a b/--c")).toBe("20261121-2304-a-b-c");
    expect(makeRunId(NOW, "7")).toBe("20261121-2304-007");
    expect(makeRunId(NOW, "x".repeat(40))).toBe(`20261121-2304-${"x".repeat(24)}`);
  });

  it("take the caller's token; the app's is the issue number and five characters of a MAC of the start event", () => {
    expect(runOf({}).id).toBe("20261121-2304-001");
    expect(runOf({ runToken: "k3f9qz" }).id).toBe("20261121-2304-k3f9qz");
    const key = Buffer.from("repository key");
    const token = (issue: number, event = "delivery-1", k: Uint8Array = key) =>
      issueRunToken(issue, event, k);
    const a = runOf({ runToken: token(42) });
    expect(a.id).toMatch(/^20261121-2304-42-[0-9a-z]{5}$/);
    // A redelivered start gets the same id; another start, or another key, does not.
    expect(runOf({ runToken: token(42) }).id).toBe(a.id);
    expect(runOf({ runToken: token(42, "delivery-2") }).id).not.toBe(a.id);
    expect(runOf({ runToken: token(42, "delivery-1", Buffer.from("other")) }).id).not.toBe(a.id);
    expect(runOf({ runToken: token(43) }).id).toMatch(/^20261121-2304-43-/);
  });

  it("spreads bytes over 32 characters evenly", () => {
    expect(tokenChars(Uint8Array.from([0, 31, 32, 255, 10]), 5)).toBe("0z0za");
    expect(tokenChars(Uint8Array.from([1]), 3)).toBe("111");
  });

  it("decode in both forms: new ids, and the old ones of runs still in flight", () => {
    for (const id of ["20261121-2304-007", "20261121-2304-42-k3f9q", "20261121-2304-k3f9qz"]) {
      const parsed = parseRunState(JSON.stringify({ ...runOf({}), id }));
      expect(parsed.ok, id).toBe(true);
    }
    for (const id of ["20261121-2304-../x", "20261121-2304-", "20261121-2304-Ab", "x"]) {
      const parsed = parseRunState(JSON.stringify({ ...runOf({}), id }));
      expect(parsed.ok, id).toBe(false);
    }
  });
});

describe("the branch step's if_exists", () => {
  const playbook = (ifExists: string) => yaml`
    apiVersion: playbook-bot/v1
    id: br
    description: A branch.
    steps:
      - id: br
        type: branch
        name: work/fix
        if_exists: ${ifExists}
      - id: done
        type: end
  `;

  it("is checked by the schema", () => {
    for (const v of ["reuse", "fail", "new-name"])
      expect(
        validateSource("pb.yaml", playbook(v)).diagnostics.filter((d) => d.severity === "error"),
      ).toEqual([]);
    const bad = validateSource("pb.yaml", playbook("overwrite")).diagnostics;
    expect(bad.some((d) => d.severity === "error" && d.path.includes("if_exists"))).toBe(true);
  });

  it("is passed to the effect", () => {
    const d = new Driver(bundle(playbook("new-name")));
    d.start();
    d.cont();
    expect(d.last.effects[0]).toMatchObject({
      kind: "branch",
      params: { name: "work/fix", require_new: false, if_exists: "new-name" },
    });
  });
});
