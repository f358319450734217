import type { SourceProblem, SourceProblemKind } from "../../format/source.js";
import type { RulePass } from "../rule.js";

type YamlCode =
  "yaml-syntax" | "yaml-duplicate-key" | "yaml-limit" | "yaml-encoding" | "file-refused";

// One loader reads the bytes, decodes them and parses the YAML: each kind of problem it stops at has its code.
const CODES: Record<SourceProblemKind, YamlCode> = {
  syntax: "yaml-syntax",
  "duplicate-key": "yaml-duplicate-key",
  limit: "yaml-limit",
  encoding: "yaml-encoding",
  refused: "file-refused",
};

/** The problems that stop a file from loading as YAML, as findings on the whole document. */
export const yamlSource: RulePass<YamlCode, readonly SourceProblem[]> = {
  rules: [
    {
      code: "yaml-syntax",
      layer: "syntax",
      severity: "error",
      summary: "the file is not valid YAML",
    },
    {
      code: "yaml-duplicate-key",
      layer: "syntax",
      severity: "error",
      summary: "a mapping repeats a key",
    },
    {
      code: "yaml-limit",
      layer: "syntax",
      severity: "error",
      summary: "the document exceeds a size, depth, node or alias limit",
    },
    {
      code: "yaml-encoding",
      layer: "syntax",
      severity: "error",
      summary: "the file is not UTF-8 text",
    },
    {
      code: "file-refused",
      layer: "syntax",
      severity: "error",
      summary:
        "the file is not read: a link, a device, pipe or socket, a file outside the folder, or one too large",
    },
  ],
  check: (problems) =>
    problems.map((p) => ({
      rule: CODES[p.kind],
      path: "(document)",
      span: p.span,
      message: p.message,
      hint: p.hint,
    })),
};
