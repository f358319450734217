import { describe, expect, it } from "vitest";
import { renderTemplate } from "../../../src/core/engine/render.js";
import {
  isTemplated,
  MAX_TEMPLATE_LENGTH,
  MAX_TEMPLATE_NESTING,
  parseTemplate,
  templateRefs,
  templateSkeleton,
} from "../../../src/core/format/template.js";

describe("parseTemplate", () => {
  it("splits text and references", () => {
    expect(parseTemplate("Bump {{ inputs.package }} to {{steps.b.outputs.name}}!")).toEqual({
      parts: [
        { kind: "text", text: "Bump " },
        {
          kind: "ref",
          path: ["inputs", "package"],
          raw: "{{ inputs.package }}",
          offset: 5,
          placeholder: false,
        },
        { kind: "text", text: " to " },
        {
          kind: "ref",
          path: ["steps", "b", "outputs", "name"],
          raw: "{{steps.b.outputs.name}}",
          offset: 29,
          placeholder: false,
        },
        { kind: "text", text: "!" },
      ],
      problems: [],
    });
  });

  it("reads ${name} placeholders as inputs", () => {
    expect(parseTemplate("ns=${ namespace }").parts).toEqual([
      { kind: "text", text: "ns=" },
      {
        kind: "ref",
        path: ["inputs", "namespace"],
        raw: "${ namespace }",
        offset: 3,
        placeholder: true,
      },
    ]);
  });

  it("keeps plain text as one part", () => {
    expect(parseTemplate("no refs here")).toEqual({
      parts: [{ kind: "text", text: "no refs here" }],
      problems: [],
    });
    expect(parseTemplate("")).toEqual({ parts: [], problems: [] });
  });

  it.each([
    [
      "x ${{ inputs.a }} y",
      "'${{ inputs.a }}' is GitHub Actions syntax, not a playbook template",
      2,
    ],
    ["${{ inputs.a", "'${{ inputs.a' is GitHub Actions syntax, not a playbook template", 0],
    ["{{ inputs.a", "'{{' is never closed", 0],
    ["{{ }}", "empty template '{{ }}'", 0],
    [
      "{{ x | upper }}",
      "'{{ x | upper }}': '| upper' is not supported: the only filter is default('…')",
      7,
    ],
    ["a {{ inputs.a + 1 }}", "'{{ inputs.a + 1 }}': unexpected character '+'", 14],
    ["{{ a if b }}", "'{{ a if b }}': 'x if test' needs an else: x if test else y", 5],
    ["{{ f(x) }}", "'{{ f(x) }}': unexpected '('", 4],
    [
      "{{ a | default(b) }}",
      "'{{ a | default(b) }}': default(…) takes one literal: default('utf-8')",
      15,
    ],
    [
      "{% for x in y %}z",
      "'{% for %}' is not supported: blocks are {% if %}, {% elif %}, {% else %} and {% endif %}",
      0,
    ],
    ["{% if a %}open", "{% if %} is never closed", 0],
    ["x{% endif %}", "{% endif %} without an {% if %}", 1],
    ["{% if a %}{% else %}{% elif b %}{% endif %}", "{% elif %} after {% else %}", 20],
    ["{% if a == %}x{% endif %}", "expression ends too early", 11],
    ["${ 1bad }", "'${ 1bad }' is not a valid placeholder", 0],
    ["${unclosed and more", "'${unclosed a' is not a valid placeholder", 0],
  ])("reports %j", (src, message, offset) => {
    const { problems } = parseTemplate(src);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ message, offset });
    expect(problems[0]?.hint).not.toBe("");
  });

  it("continues after a problem", () => {
    const r = parseTemplate("{{ a b }} then {{ inputs.x }}");
    expect(r.problems).toHaveLength(1);
    expect(r.parts.filter((p) => p.kind === "ref").map((p) => p.kind === "ref" && p.raw)).toEqual([
      "{{ inputs.x }}",
    ]);
  });
});

describe("the logic-limited subset", () => {
  it("reads a list item, a fallback, a default and a choice as values, and names every reference", () => {
    const src =
      "{{ inputs.files[0] }} {{ inputs.q or steps.t.outputs.topics[1] }} {{ inputs.enc | default('utf-8') }} {{ steps.s.outputs.f if steps.s.outputs.f != '' else 'square' }}";
    const { parts, problems } = parseTemplate(src);
    expect(problems).toEqual([]);
    expect(parts[0]).toMatchObject({ kind: "ref", path: ["inputs", "files"], index: [0] });
    expect(parts.filter((p) => p.kind === "value")).toHaveLength(3);
    expect(templateRefs(parts).map((r) => [r.path.join("."), r.optional])).toEqual([
      ["inputs.files", false],
      ["inputs.q", true],
      ["steps.t.outputs.topics", true],
      ["inputs.enc", true],
      ["steps.s.outputs.f", true],
      ["steps.s.outputs.f", false],
    ]);
  });

  it("nests {% if %} blocks and finds the references of their tests", () => {
    const src =
      "{% if inputs.a %}A{% elif inputs.b == 'x' %}{% if findings.c %}C{% endif %}{% else %}E{% endif %}";
    const { parts, problems } = parseTemplate(src);
    expect(problems).toEqual([]);
    expect(parts).toHaveLength(1);
    expect(templateRefs(parts).map((r) => r.path.join("."))).toEqual([
      "inputs.a",
      "inputs.b",
      "findings.c",
    ]);
    expect(templateSkeleton(src)).toBe("x");
  });

  it.each([
    ["{{ a | default }}", "expected '(' after default"],
    ["{{ a | default('x' }}", "expected ')'"],
    ["{{ 'x }}", "unterminated string"],
    ["{{ a if else b }}", "the test is empty"],
    ["{{ a b }}", "unexpected 'b'"],
    ["{% if a %}x{% else b %}{% endif %}", "{% else %} takes nothing"],
    ["{% if a %}x{% endif b %}", "{% endif %} takes nothing"],
    ["{% if a %}{% else %}{% else %}{% endif %}", "{% else %} after {% else %}"],
    ["{% if a", "'{%' is never closed"],
    ["{%  %}", "is not supported: blocks are {% if %}, {% elif %}, {% else %} and {% endif %}"],
  ])("explains %j", (src, message) => {
    const { problems } = parseTemplate(src);
    expect(problems.map((p) => p.message).join(" | ")).toContain(message);
    expect(problems.every((p) => p.hint !== "")).toBe(true);
  });

  it("reads no more than its bound of text", () => {
    const long = "x".repeat(MAX_TEMPLATE_LENGTH + 1);
    expect(parseTemplate(long).problems[0]?.message).toBe(
      `the template is ${long.length} characters long; at most ${MAX_TEMPLATE_LENGTH} are read`,
    );
  });

  it("renders literals, and a fallback whose options are all missing is an error", () => {
    expect(renderTemplate("{{ 'a' if 1 == 1 else 2 }}", () => undefined, "value")).toEqual({
      ok: true,
      value: "a",
    });
    expect(renderTemplate("{{ 0 or 7 }}", () => undefined, "value")).toEqual({
      ok: true,
      value: "7",
    });
    expect(renderTemplate("{{ 0 or inputs.none }}", () => undefined, "value")).toEqual({
      ok: true,
      value: "0",
    });
  });

  it("refuses blocks nested deeper than the bound", () => {
    const deep =
      "{% if a %}".repeat(MAX_TEMPLATE_NESTING + 1) +
      "{% endif %}".repeat(MAX_TEMPLATE_NESTING + 1);
    expect(parseTemplate(deep).problems.map((p) => p.message)).toContain(
      `{% if %} blocks nest deeper than ${MAX_TEMPLATE_NESTING}`,
    );
  });

  const values: Record<string, unknown> = {
    "inputs.files": ["a.pdf", "b.pdf"],
    "inputs.q": "",
    "inputs.mode": "fast",
    "steps.t.outputs.topics": ["cats", "dogs"],
    "findings.c": true,
  };
  const resolve = (path: readonly string[]): unknown => values[path.join(".")];

  it.each([
    ["{{ inputs.files[1] }}", "b.pdf"],
    ["{{ inputs.q or steps.t.outputs.topics[0] }}", "cats"],
    ["{{ inputs.missing or inputs.q }}", ""],
    ["{{ inputs.enc | default('utf-8') }}", "utf-8"],
    ["{{ 'wide' if inputs.mode == 'fast' else 'square' }}", "wide"],
    ["{{ 'wide' if inputs.mode != 'fast' else inputs.files[0] }}", "a.pdf"],
    ["{% if inputs.q %}Q{% elif findings.c %}C{% else %}E{% endif %}!", "C!"],
    ["{% if inputs.nothing %}{{ inputs.nothing }}{% endif %}ok", "ok"],
    ["{% if not inputs.files %}none{% else %}{{ inputs.files }}{% endif %}", "a.pdf, b.pdf"],
  ])("renders %j", (src, expected) => {
    expect(renderTemplate(src, resolve, "value")).toEqual({ ok: true, value: expected });
  });

  it.each([
    ["{{ inputs.files[5] }}", "'{{ inputs.files[5] }}' has no value in this run"],
    ["{{ inputs.a or inputs.b }}", "'{{ inputs.a or inputs.b }}' has no value in this run"],
    [
      "{% if findings.c %}{{ inputs.gone }}{% endif %}",
      "'{{ inputs.gone }}' has no value in this run",
    ],
  ])("a value that is not there is still an error: %j", (src, message) => {
    expect(renderTemplate(src, resolve, "value")).toMatchObject({
      ok: false,
      error: { code: "PB-TEMPLATE-UNDEFINED", message },
    });
  });

  it("makes a chosen value inert in text for people", () => {
    const r = renderTemplate("{{ inputs.x or 'y' }}", () => "@admin <!-- x -->", "text");
    expect(r).toEqual({ ok: true, value: "@\u200badmin &lt;!-- x --&gt;" });
  });
});

describe("isTemplated and templateSkeleton", () => {
  it("detects templates", () => {
    expect(isTemplated("a {{ b }}")).toBe(true);
    expect(isTemplated("a ${b}")).toBe(true);
    expect(isTemplated("a $b {b}")).toBe(false);
  });

  it("replaces references by a stand-in", () => {
    expect(templateSkeleton("docs/{{ inputs.slug }}/${name}.md")).toBe("docs/x/x.md");
    expect(templateSkeleton("../{{ inputs.a }}", "Q")).toBe("../Q");
  });
});
