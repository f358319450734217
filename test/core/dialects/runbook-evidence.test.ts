import { describe, expect, it } from "vitest";
import {
  policyFindings,
  rulesOfNormalization,
} from "../../../src/core/dialects/runbook/evidence.js";

const emit = (e: Record<string, unknown>, when?: unknown) => ({
  cases: [{ ...(when === undefined ? {} : { when }), emit: [e] }],
});

describe("a normalization file as finding rules", () => {
  it("reads a case's when of several paths and literal kinds, and an emit's requires", () => {
    expect(
      rulesOfNormalization(
        emit(
          { finding_type: "warm", requires: { exists: true, ttl_seconds_gt: 60 } },
          { ok: true, "meta.kind": "view", code: 2, reason: null },
        ),
      ),
    ).toEqual([
      {
        finding: "warm",
        when: "((result.ok == true) and (result.meta.kind == 'view') and (result.code == 2) and (result.reason == null)) and ((result.exists == true) and (result.ttl_seconds > 60))",
      },
    ]);
    expect(rulesOfNormalization(emit({ finding_type: "seen" }))).toEqual([{ finding: "seen" }]);
    expect(
      rulesOfNormalization(emit({ finding_type: "seen", requires: { exists: false } })),
    ).toEqual([{ finding: "seen", when: "result.exists == false" }]);
  });

  it("reads an emit by a condition path as one finding or the other", () => {
    expect(
      rulesOfNormalization(
        emit(
          { condition_path: "found", finding_type_true: "row", finding_type_false: "no_row" },
          { ok: true },
        ),
      ),
    ).toEqual([
      { finding: "row", when: "(result.ok == true) and (result.found)" },
      { finding: "no_row", when: "(result.ok == true) and (not result.found)" },
    ]);
  });

  it("refuses what the spec's three forms cannot say, rather than reading it wrong", () => {
    const refused: unknown[] = [
      "not an object",
      { rules: [] },
      { cases: "x" },
      { cases: [3] },
      { cases: [{ emit: "x" }] },
      emit({ finding_type: "x" }, "ok"),
      emit({ finding_type: "x" }, { ok: { deep: true } }),
      emit({ finding_type: "x" }, { "bad key!": true }),
      emit({ finding_type: "x" }, { reason: "it's" }),
      { cases: [{ emit: [3] }] },
      emit({ condition_path: "found", finding_type_true: "row" }),
      emit({ condition_path: 3, finding_type_true: "row", finding_type_false: "no" }),
      emit({ finding_type: 3 }),
      emit({ finding_type: "x", requires: "yes" }),
      emit({ finding_type: "x", requires: { exists: {} } }),
      emit({ finding_type: "x", requires: { ttl_seconds_gt: "60" } }),
      { collection: { path: "items" } },
      { collection: { path: "a b", emit_per_item: { finding_type: "x" } } },
      { table_rows: { path: "rows", found_finding_type: "found" } },
      { table_rows: { path: "rows", missing_finding_type: "missing" } },
      { table_rows: { found_finding_type: "f", missing_finding_type: "m" } },
    ];
    for (const meta of refused)
      expect(rulesOfNormalization(meta), JSON.stringify(meta)).toBeUndefined();
  });

  it("reads a collection per item and table rows per table", () => {
    expect(
      rulesOfNormalization({
        collection: { path: "spans.missing", emit_per_item: { finding_type: "span_missing" } },
      }),
    ).toEqual([{ finding: "span_missing", each: "result.spans.missing" }]);
    expect(
      rulesOfNormalization({
        table_rows: { path: "rows", found_finding_type: "f", missing_finding_type: "m" },
      }),
    ).toEqual([
      { finding: "f", each: "result.rows", when: "item" },
      { finding: "m", each: "result.rows", when: "not item" },
    ]);
  });
});

describe("an evidence policy", () => {
  it("names the finding types its rules emit, or nothing when it is not one", () => {
    expect(
      policyFindings({ rules: [{ emit: { finding_type: "a" } }, { emit: {} }, 3, { id: "x" }] }),
    ).toEqual(["a"]);
    expect(policyFindings({ name: "x" })).toBeUndefined();
    expect(policyFindings(undefined)).toBeUndefined();
  });
});
