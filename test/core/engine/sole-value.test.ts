import { describe, expect, it } from "vitest";
import { soleValue } from "../../../src/core/engine/sole-value.js";

const values: Record<string, unknown> = {
  "inputs.tags": "a, b",
  "inputs.name": "octo",
  "inputs.config": '{"region": "eu"}',
  "inputs.broken": "{not json",
  "inputs.big": `[${'"x",'.repeat(20_000)}"x"]`,
  "inputs.none": null,
  "steps.s.outputs.n": 3,
  "steps.s.outputs.ok": false,
  "steps.s.outputs.list": ["x", "y"],
};
const resolve = (path: readonly string[]) => values[path.join(".")] as never;
const lists = (name: string) => name === "tags";

describe("soleValue: the value of a template that is one name", () => {
  it("keeps a list, a number, a boolean; splits a list input; reads JSON text back", () => {
    expect(soleValue("{{ steps.s.outputs.list }}", resolve)).toEqual(["x", "y"]);
    expect(soleValue(" {{ steps.s.outputs.n }} ", resolve)).toBe(3);
    expect(soleValue("{{ steps.s.outputs.ok }}", resolve)).toBe(false);
    expect(soleValue("{{ inputs.tags }}", resolve, lists)).toEqual(["a", "b"]);
    expect(soleValue("{{ inputs.config }}", resolve)).toEqual({ region: "eu" });
  });

  it("leaves text, missing values and anything more than one name to be rendered", () => {
    expect(soleValue("{{ inputs.tags }}", resolve)).toBeUndefined();
    expect(soleValue("{{ inputs.tags[0] }}", resolve, lists)).toBeUndefined();
    expect(soleValue("{{ inputs.name }}", resolve, lists)).toBeUndefined();
    expect(soleValue("{{ inputs.broken }}", resolve)).toBeUndefined();
    expect(soleValue("{{ inputs.big }}", resolve)).toBeUndefined();
    expect(soleValue("{{ inputs.none }}", resolve)).toBeUndefined();
    expect(soleValue("{{ inputs.gone }}", resolve)).toBeUndefined();
    expect(soleValue("x {{ inputs.config }}", resolve)).toBeUndefined();
    expect(soleValue("{{ inputs.a or inputs.b }}", resolve)).toBeUndefined();
    expect(soleValue("{{ inputs. }}", resolve)).toBeUndefined();
  });
});
