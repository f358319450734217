import { describe, expect, it } from "vitest";
import { isTemplated, parseTemplate, templateSkeleton } from "../../../src/core/format/template.js";

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
      "'{{ x | upper }}' is not a reference (templates hold a name only: no filters, helpers or code)",
      0,
    ],
    [
      "a {{ inputs.a + 1 }}",
      "'{{ inputs.a + 1 }}' is not a reference (templates hold a name only: no filters, helpers or code)",
      2,
    ],
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
