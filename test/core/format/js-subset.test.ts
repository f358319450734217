import { describe, expect, it } from "vitest";
import {
  ExpressionError,
  evaluateExpression,
  expressionRefs,
  parseExpression,
} from "../../../src/core/format/expression.js";
import {
  catalystTruthy,
  evaluateJsSubset,
  parseJsSubset,
} from "../../../src/core/format/js-subset.js";

const values: Record<string, unknown> = {
  "steps.tracked.outputs.stdout": "  a.md\nb.md\n",
  "steps.empty.outputs.stdout": "   \n",
  "steps.list-step.outputs.value": ["x", "y"],
  "inputs.name": "Alpha",
  "inputs.count": "3",
  "steps.loop.outputs.value": JSON.stringify([{ path: "a" }, { path: "b" }]),
  "inputs.braces": "{not json",
  "inputs.obj": { inner: { deep: 1 } },
  item_index: 1,
  "inputs.fn": () => 1,
};
/** The longest path with a value, then its fields, as the run's resolver reads them. */
function resolve(path: readonly string[]): unknown {
  for (let n = path.length; n > 0; n--) {
    const key = path.slice(0, n).join(".");
    if (Object.hasOwn(values, key))
      return path
        .slice(n)
        .reduce<unknown>((v, f) => (v as Record<string, unknown>)?.[f], values[key]);
  }
  return undefined;
}
const test = (src: string): boolean =>
  evaluateExpression(parseExpression(`\${{ ${src} }}`), resolve);
const value = (src: string): unknown => evaluateJsSubset(parseJsSubset(src), resolve);

function errorOf(src: string): ExpressionError {
  try {
    parseExpression(src);
  } catch (err) {
    if (err instanceof ExpressionError) return err;
    throw err;
  }
  throw new Error(`'${src}' parsed`);
}

describe("the ${{ }} form of an expression: a JavaScript subset, interpreted", () => {
  it("reads the run's values through fields, names with dashes and positions", () => {
    expect(test("steps.tracked.outputs.stdout.trim().length > 0")).toBe(true);
    expect(test("steps.empty.outputs.stdout.trim().length > 0")).toBe(false);
    expect(value("steps['list-step'].outputs.value[item_index]")).toBe("y");
    expect(value("steps['list-step'].outputs.value.length")).toBe(2);
    expect(value("inputs.obj.inner.deep")).toBe(1);
    expect(value("inputs.obj['inner'].deep")).toBe(1);
    expect(value("inputs.missing.field")).toBeUndefined();
  });

  it("compares as JavaScript does: loose and strict equality, text and number order", () => {
    expect(test("inputs.count == 3")).toBe(true);
    expect(test("inputs.count === 3")).toBe(false);
    expect(test("inputs.count !== '3'")).toBe(false);
    expect(test("inputs.count != 4")).toBe(true);
    expect(test("inputs.missing == null")).toBe(true);
    expect(test("inputs.missing == 0")).toBe(false);
    expect(test("inputs.obj == 'x'")).toBe(false);
    expect(test("inputs.name < 'Beta'")).toBe(true);
    expect(test("inputs.count <= 3 && inputs.count >= 3")).toBe(true);
    expect(test("'10' < '9'")).toBe(true);
    expect(test("inputs.count < 10")).toBe(true);
  });

  it("has the logic, ternary and methods of the subset, with JavaScript's results", () => {
    expect(value("inputs.missing || 'fallback'")).toBe("fallback");
    expect(value("inputs.name && inputs.count")).toBe("3");
    expect(value("inputs.missing && 1")).toBeUndefined();
    expect(value("inputs.missing ?? 'x'")).toBe("x");
    expect(value("!inputs.name")).toBe(false);
    expect(value("-inputs.count")).toBe(-3);
    expect(value("inputs.count > 2 ? 'many' : 'few'")).toBe("many");
    expect(value("inputs.count > 5 ? 'many' : 'few'")).toBe("few");
    expect(value("inputs.name.toLowerCase().startsWith('al')")).toBe(true);
    expect(value("inputs.name.toUpperCase().endsWith('HA')")).toBe(true);
    expect(value("['Alpha', 'Beta'].includes(inputs.name)")).toBe(true);
    expect(value("inputs.name.split('l').join('-')")).toBe("A-pha");
    expect(value("[1, , 2].length")).toBe(3);
    expect(value("undefined")).toBeUndefined();
  });

  it("calls nothing on a value that is not a text or a list, and reads no inherited field", () => {
    expect(value("inputs.obj.includes('x')")).toBeUndefined();
    expect(value("inputs.count.includes(inputs.obj)")).toBeUndefined();
    expect(value("inputs.obj['toString']")).toBeUndefined();
    expect(value("inputs.name['x']")).toBeUndefined();
    expect(value("inputs.obj[inputs.obj]")).toBeUndefined();
    expect(value("inputs.name[0]")).toBe("A");
    expect(value("inputs.fn")).toBeUndefined();
    expect(value("steps.loop.outputs.value[item_index].path")).toBe("b");
    expect(value("steps.loop.outputs.value.length")).toBe(27);
    expect(value("inputs.braces[0]")).toBe("{");
    expect(value("'[1]'[0]")).toBe(1);
    expect(value("'[]'[0]")).toBeUndefined();
    expect(value("'[1'[0]")).toBe("[");
    expect(value("'null'[0]")).toBe("n");
    expect(value("inputs.obj[inputs.key ?? '__proto__']")).toBeUndefined();
  });

  it("lists its references for the static checks", () => {
    const refs = expressionRefs(
      parseExpression(
        "${{ steps.a.outputs.x.includes(inputs.y) ? [item] : !inputs.z[item_index] }}",
      ),
    ).map((r) => r.path.join("."));
    expect(refs).toEqual(["steps.a.outputs.x", "inputs.y", "item", "inputs.z", "item_index"]);
  });

  it.each([
    ["${{ fetch('http://x') }}", "call of the function 'fetch'", 4],
    ["${{ inputs.name.constructor }}", "'constructor'", 16],
    ["${{ inputs.__proto__ }}", "'__proto__'", 11],
    ["${{ constructor }}", "'constructor'", 4],
    ["${{ this.x }}", "'this'", 4],
    ["${{ inputs.x = 1 }}", "outside the expression subset", 13],
    ["${{ `a${b}` }}", "outside the expression subset", 4],
    ["${{ inputs.x.replace('a', 'b') }}", "the method 'replace'", 13],
    ["${{ inputs.x + 1 }}", "the operator '+'", 13],
    ["${{ typeof inputs.x }}", "outside the expression subset", 3],
    ["${{ ~inputs.x }}", "the operator '~'", 4],
    ["${{ a, b }}", "a Compound", 5],
    ["${{ inputs.x[0](1) }}", "the method '…'", 15],
    ["${{ (inputs.x)(1) }}", "the method 'x'", 12],
    ["${{ (1)(2) }}", "a call of the function '…'", 4],
  ])("refuses %s where it is written", (src, what, offset) => {
    const err = errorOf(src);
    expect(err.message).toContain(what);
    expect(err.message).toContain(
      "write a comparison, a reference, or one of the text and list methods",
    );
    expect(err.offset).toBe(offset);
  });

  it("reads a condition's value as Catalyst's if does", () => {
    expect(catalystTruthy(" FALSE ")).toBe(false);
    expect(catalystTruthy("undefined")).toBe(false);
    expect(catalystTruthy("no")).toBe(true);
    expect(catalystTruthy(0)).toBe(false);
    expect(catalystTruthy(2)).toBe(true);
    expect(catalystTruthy([])).toBe(true);
    expect(catalystTruthy(null)).toBe(false);
    expect(catalystTruthy(undefined)).toBe(false);
    expect(test("'null'")).toBe(false);
  });

  it("leaves the other form of an expression as it was", () => {
    expect(
      evaluateExpression(parseExpression("inputs.count == 3 and not inputs.missing"), resolve),
    ).toBe(true);
    expect(
      expressionRefs(parseExpression("inputs.count == 3")).map((r) => r.path.join(".")),
    ).toEqual(["inputs.count"]);
  });
});
