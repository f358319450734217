import type { AiStep } from "../../format/types.js";
import type { StepKindPlugin } from "../kind.js";

export const aiKind: StepKindPlugin<AiStep> = {
  kind: "ai",
  outputs: ["text"],
  tool: (step) => (step.tools?.length ? `ai(${[...new Set(step.tools)].join(",")})` : "ai"),
  files: (step) =>
    step.prompt_file === undefined ? [] : [{ rel: step.prompt_file, at: ["prompt_file"] }],
  expectedFindings: (step) => step.expected_findings ?? [],
  shapeProblems: (step) =>
    (step.prompt === undefined) === (step.prompt_file === undefined)
      ? [
          {
            at: [],
            message: "an ai step needs exactly one of prompt: or prompt_file:",
            hint: "keep prompt: (inline) or prompt_file: (a markdown file)",
          },
        ]
      : [],
  // A model with write tools waits for a person's approval first.
  canWait: (step) => step.scope === "write",
  actsAfterApproval: (step) => step.scope === "write",
  repoPaths: (step) =>
    (step.expect_files ?? []).map((f, i) => ({
      path: f,
      at: ["expect_files", i],
      hint: "write paths relative to the repository root",
      glob: true,
    })),
};
