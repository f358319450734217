import { describe, expect, it } from "vitest";
import {
  enclosingStep,
  isPlaybookTarget,
  isStepTarget,
  targetId,
  valueAt,
  writtenSteps,
} from "../../../src/core/editor/references.js";

const LISTED = {
  steps: [
    {
      id: "fan",
      type: "parallel",
      branches: { left: [{ id: "l1", type: "comment" }, "junk"], right: "not a list" },
    },
    { id: "end", type: "end", handoff: ["other"] },
    { type: "comment" },
  ],
};
const NODES = { entrypoint: "a", nodes: { a: { type: "end" }, b: "junk" } };

describe("where a playbook names steps and playbooks", () => {
  it("lists steps of lists, nodes and parallel branches with their places", () => {
    expect(writtenSteps(LISTED).map((s) => [s.id, s.path, s.keyed])).toEqual([
      ["fan", ["steps", 0], false],
      ["l1", ["steps", 0, "branches", "left", 0], false],
      ["end", ["steps", 1], false],
    ]);
    expect(writtenSteps(NODES).map((s) => [s.id, s.path, s.keyed])).toEqual([
      ["a", ["nodes", "a"], true],
    ]);
    expect(writtenSteps("text")).toEqual([]);
    expect(writtenSteps({ steps: "x", nodes: [] })).toEqual([]);
  });

  it("reads values by path", () => {
    expect(valueAt(LISTED, ["steps", 1, "handoff", 0])).toBe("other");
    expect(valueAt(LISTED, ["steps", "x"])).toBeUndefined();
    expect(valueAt(LISTED, ["steps", 9, "id"])).toBeUndefined();
    expect(valueAt("x", [0])).toBeUndefined();
  });

  it("finds the innermost step around a place", () => {
    const inner = enclosingStep(LISTED, ["steps", 0, "branches", "left", 0, "next"]);
    expect(inner?.path).toEqual(["steps", 0, "branches", "left", 0]);
    expect(inner?.rest).toEqual(["next"]);
    expect(inner?.value.id).toBe("l1");
    expect(enclosingStep(NODES, ["nodes", "b", "next"])?.value).toEqual({});
    expect(enclosingStep(LISTED, ["outputs", "x"])).toBeUndefined();
    expect(enclosingStep(LISTED, ["steps"])).toBeUndefined();
  });

  it("knows every field that names a step", () => {
    const at = (...rest: (string | number)[]) => isStepTarget(LISTED, ["steps", 1, ...rest]);
    for (const field of [
      ["next"],
      ["next", 0, "goto"],
      ["next", 1, "default"],
      ["on_reject"],
      ["on_timeout"],
      ["rules", 2, "goto"],
      ["fallback", "goto"],
      ["needs", 0],
      ["on_error"],
      ["on_error", "GH-NOT-FOUND"],
    ])
      expect(at(...field), field.join(".")).toBe(true);
    for (const field of [["next", 0, "when"], ["rules", "x", "goto"], ["needs"], ["body"]])
      expect(at(...field), field.join(".")).toBe(false);
    expect(isStepTarget(NODES, ["entrypoint"])).toBe(true);
    expect(isStepTarget(NODES, ["id"])).toBe(false);
  });

  it("reads the step an error policy goes to", () => {
    expect(targetId(["steps", 0, "on_error"], "goto:fix")).toBe("fix");
    expect(targetId(["steps", 0, "on_error", "default"], "goto:fix")).toBe("fix");
    expect(targetId(["steps", 0, "on_error"], "retry:2")).toBeUndefined();
    expect(targetId(["steps", 0, "next"], "fix")).toBe("fix");
    expect(targetId(["steps", 0, "next"], null)).toBeUndefined();
  });

  it("knows the fields that name other playbooks", () => {
    expect(isPlaybookTarget(LISTED, ["steps", 1, "handoff", 0])).toBe(true);
    expect(isPlaybookTarget(LISTED, ["steps", 1, "playbook"])).toBe(true);
    expect(isPlaybookTarget(LISTED, ["steps", 1, "handoff"])).toBe(false);
    expect(isPlaybookTarget(LISTED, ["playbook"])).toBe(false);
  });
});
