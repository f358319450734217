import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { PLAYBOOK_SCHEMA, STEP_KINDS, stepFieldNames } from "../../../src/core/format/schema.js";

describe("format v1 schema", () => {
  it("is the schema written for editors in schema/playbook.v1.schema.json", () => {
    const written = JSON.parse(readFileSync("schema/playbook.v1.schema.json", "utf8"));
    expect(written).toEqual(JSON.parse(JSON.stringify(PLAYBOOK_SCHEMA)));
  });

  it("defines one step shape per step kind", () => {
    for (const kind of STEP_KINDS)
      expect(PLAYBOOK_SCHEMA.definitions).toHaveProperty(`step_${kind}`);
  });

  it("lists the fields of a step kind, common fields first", () => {
    const commit = stepFieldNames("commit");
    expect(commit.slice(0, 3)).toEqual(["id", "type", "name"]);
    expect(commit).toContain("files");
    expect(commit).not.toContain("prompt");
    expect(stepFieldNames("nonsense")).toEqual(
      stepFieldNames("end").filter(
        (f) => !["advice", "conclusion", "status", "handoff"].includes(f),
      ),
    );
  });
});
