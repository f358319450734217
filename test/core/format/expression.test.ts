import { describe, expect, it } from "vitest";
import {
  ExpressionError,
  evaluateExpression,
  expressionRefs,
  parseExpression,
} from "../../../src/core/format/expression.js";

const values: Record<string, unknown> = {
  "inputs.level": "major",
  "inputs.count": "12",
  "inputs.flag": true,
  "inputs.off": "false",
  "inputs.empty": "",
  "findings.failing_pods": 3,
  "findings.ratio": "0.5",
  "issue.number": 42,
};
const run = (src: string): boolean =>
  evaluateExpression(parseExpression(src), (p) => values[p.join(".")]);

function errorOf(src: string): { message: string; offset: number } {
  try {
    parseExpression(src);
  } catch (err) {
    if (err instanceof ExpressionError) return { message: err.message, offset: err.offset };
    throw err;
  }
  throw new Error(`parsed: ${src}`);
}

describe("parseExpression", () => {
  it("builds comparisons and references with offsets", () => {
    expect(parseExpression("inputs.level == 'major'")).toEqual({
      kind: "compare",
      op: "==",
      left: { kind: "ref", path: ["inputs", "level"], offset: 0 },
      right: { kind: "literal", value: "major" },
    });
  });

  it("binds and tighter than or, and not tighter than and", () => {
    const e = parseExpression("a or b and not c");
    expect(e).toMatchObject({
      kind: "logic",
      op: "or",
      left: { kind: "ref", path: ["a"] },
      right: {
        kind: "logic",
        op: "and",
        left: { kind: "ref", path: ["b"] },
        right: { kind: "not", operand: { kind: "ref", path: ["c"] } },
      },
    });
    expect(parseExpression("(a or b) and c")).toMatchObject({ kind: "logic", op: "and" });
    const noOffsets = (src: string): string =>
      JSON.stringify(parseExpression(src)).replace(/"offset":\d+/g, "");
    expect(noOffsets("a || b && !c")).toBe(noOffsets("a or b and not c"));
  });

  it("reads literals: numbers, negative numbers, strings with escapes, keywords", () => {
    expect(parseExpression("-1.5")).toEqual({ kind: "literal", value: -1.5 });
    expect(parseExpression('"a\\"b"')).toEqual({ kind: "literal", value: 'a"b' });
    expect(parseExpression("true")).toEqual({ kind: "literal", value: true });
    expect(parseExpression("null")).toEqual({ kind: "literal", value: null });
    expect(parseExpression("x > -2")).toMatchObject({ right: { kind: "literal", value: -2 } });
  });

  it("lists references for static checks", () => {
    const e = parseExpression("not (inputs.a == 1 or steps.s.outputs.x) and 'k' != findings.f");
    expect(expressionRefs(e).map((r) => r.path.join("."))).toEqual([
      "inputs.a",
      "steps.s.outputs.x",
      "findings.f",
    ]);
    expect(expressionRefs(parseExpression("1 < 2"))).toEqual([]);
  });

  it.each([
    ["inputs.level ==", "expression ends too early", 15],
    ["inputs.level = 'x'", "unexpected character '='", 13],
    ["'open", "unterminated string", 0],
    ["(a == 1", "expected ')'", 7],
    ["a == 1 b", "unexpected 'b' after a complete expression", 7],
    ["a 'x'", "unexpected string after a complete expression", 2],
    ["and a", "unexpected 'and'", 0],
    ["a == )", "unexpected ')'", 5],
    ["a $ b", "unexpected character '$'", 2],
    ["", "expression ends too early", 0],
  ])("rejects %j: %s at %i", (src, message, offset) => {
    expect(errorOf(src)).toEqual({ message, offset });
  });
});

describe("evaluateExpression", () => {
  it.each([
    ["inputs.level == 'major'", true],
    ["inputs.level != 'major'", false],
    ["inputs.count > 9", true],
    ["inputs.count == 12", true],
    ["inputs.count >= '12'", true],
    ["inputs.count < 100", true],
    ["inputs.count <= 11", false],
    ["findings.ratio == 0.5", true],
    ["findings.failing_pods > 0 and inputs.level == 'major'", true],
    ["findings.failing_pods > 5 or inputs.level == 'minor'", false],
    ["not findings.failing_pods", false],
    ["not findings.missing", true],
    ["inputs.flag == true", true],
    ["inputs.off == false", true],
    ["inputs.empty", false],
    ["inputs.off", false],
    ["findings.missing == null", true],
    ["'b' > 'a'", true],
    ["'a' >= 'b'", false],
    ["'a' < 'a'", false],
    ["'a' <= 'a'", true],
    ["inputs.flag > 1", false],
    ["issue.number == '42'", true],
    ["true and false or true", true],
    ["true and (false or false)", false],
    ["inputs.level == 'major' && !(inputs.count < 5)", true],
  ])("%s → %s", (src, expected) => {
    expect(run(src)).toBe(expected);
  });

  it("does not evaluate the right side when the left decides", () => {
    const seen: string[] = [];
    const resolve = (p: readonly string[]): unknown => {
      seen.push(p.join("."));
      return p[0] === "yes";
    };
    expect(evaluateExpression(parseExpression("no and x"), resolve)).toBe(false);
    expect(evaluateExpression(parseExpression("yes or y"), resolve)).toBe(true);
    expect(seen).toEqual(["no", "yes"]);
  });
});
