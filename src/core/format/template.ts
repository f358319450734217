/**
 * Logic-less templates: `{{ inputs.x }}`, `{{ steps.id.outputs.k }}`, `{{ findings.k }}`,
 * `{{ issue.number }}`, and Triagent's `${placeholder}` for an input. A template is only ever
 * split into text and references; there are no filters, helpers or code.
 */
export type TemplatePart =
  | { kind: "text"; text: string }
  | { kind: "ref"; path: string[]; raw: string; offset: number; placeholder: boolean };

export interface TemplateProblem {
  message: string;
  offset: number;
  hint: string;
}

const REF = /^[A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z0-9_][A-Za-z0-9_-]*)*$/;

export function parseTemplate(src: string): { parts: TemplatePart[]; problems: TemplateProblem[] } {
  const parts: TemplatePart[] = [];
  const problems: TemplateProblem[] = [];
  let text = "";
  let i = 0;
  const flush = (): void => {
    if (text !== "") parts.push({ kind: "text", text });
    text = "";
  };
  while (i < src.length) {
    if (src.startsWith("${{", i)) {
      const close = src.indexOf("}}", i);
      problems.push({
        message: `'${src.slice(i, close === -1 ? undefined : close + 2)}' is GitHub Actions syntax, not a playbook template`,
        offset: i,
        hint: "write {{ inputs.name }} (no leading $)",
      });
      i = close === -1 ? src.length : close + 2;
      continue;
    }
    if (src.startsWith("{{", i)) {
      const close = src.indexOf("}}", i + 2);
      if (close === -1) {
        problems.push({ message: "'{{' is never closed", offset: i, hint: "close it with '}}'" });
        break;
      }
      const inner = src.slice(i + 2, close).trim();
      if (!REF.test(inner)) {
        problems.push({
          message:
            inner === ""
              ? "empty template '{{ }}'"
              : `'{{ ${inner} }}' is not a reference (templates hold a name only: no filters, helpers or code)`,
          offset: i,
          hint: "write a name such as {{ inputs.package }} or {{ steps.branch.outputs.name }}",
        });
      } else {
        flush();
        parts.push({
          kind: "ref",
          path: inner.split("."),
          raw: src.slice(i, close + 2),
          offset: i,
          placeholder: false,
        });
      }
      i = close + 2;
      continue;
    }
    if (src.startsWith("${", i)) {
      const close = src.indexOf("}", i + 2);
      const inner = close === -1 ? "" : src.slice(i + 2, close).trim();
      if (close === -1 || !/^[A-Za-z_][A-Za-z0-9_-]*$/.test(inner)) {
        problems.push({
          message: `'${src.slice(i, close === -1 ? i + 12 : close + 1)}' is not a valid placeholder`,
          offset: i,
          hint: "a placeholder names one input: ${namespace}",
        });
        i = close === -1 ? src.length : close + 1;
        continue;
      }
      flush();
      parts.push({
        kind: "ref",
        path: ["inputs", inner],
        raw: src.slice(i, close + 1),
        offset: i,
        placeholder: true,
      });
      i = close + 1;
      continue;
    }
    text += src[i];
    i++;
  }
  flush();
  return { parts, problems };
}

/** Whether a string contains anything a template would replace. */
export function isTemplated(src: string): boolean {
  return src.includes("{{") || src.includes("${");
}

/** The literal skeleton of a template with each reference replaced by `stand`: for static path checks. */
export function templateSkeleton(src: string, stand = "x"): string {
  return parseTemplate(src)
    .parts.map((p) => (p.kind === "text" ? p.text : stand))
    .join("");
}
