import type { DiagnosticInput } from "../../format/diagnostics.js";
import type { PathSegment } from "../../format/source.js";
import { isTemplated, templateSkeleton } from "../../format/template.js";
import type { Step } from "../../format/types.js";
import { branchNameProblem, repoPathProblem } from "../../util/git-ref.js";
import { diagnosticAt, type GateContext } from "./context.js";

/** Fields of one step that must fit together, paths that must be safe, files that must exist. */
export function stepsGate(ctx: GateContext): DiagnosticInput[] {
  const { doc, graph } = ctx;
  const out: DiagnosticInput[] = [];
  const push = (
    rule: DiagnosticInput["rule"],
    at: PathSegment[],
    message: string,
    hint: string,
    key = false,
  ): void => {
    out.push(diagnosticAt(doc, rule, at, message, hint, { key }));
  };
  const fileRef = (rel: string, at: PathSegment[]): void => {
    if (rel.startsWith("/") || /^[A-Za-z]:/.test(rel)) {
      push(
        "path-unsafe",
        at,
        `'${rel}' is absolute; file references are relative to the playbook file`,
        "write the path relative to the playbook's folder",
      );
      return;
    }
    if (ctx.fileExists && !ctx.fileExists(rel)) {
      push(
        "file-missing",
        at,
        `file '${rel}' does not exist (looked relative to the playbook file)`,
        "create the file, or fix the path",
      );
    }
  };
  const dominators = graph.dominators();

  for (const s of graph.steps) {
    const step: Step = s.step;
    const p = s.path;
    switch (step.type) {
      case "commit": {
        if (!step.files?.length && !step.paths?.length) {
          push(
            "step-shape",
            p,
            "a commit step needs files: (content to write) or paths: (files to commit)",
            "add files: [{ path: …, content: … }]",
          );
        }
        step.files?.forEach((f, i) => {
          const fp: PathSegment[] = [...p, "files", i];
          if ((f.content === undefined) === (f.template === undefined)) {
            push(
              "step-shape",
              fp,
              "a file needs exactly one of content: or template:",
              "keep content: (inline) or template: (a file next to the playbook)",
            );
          }
          const problem = repoPathProblem(templateSkeleton(f.path));
          if (problem)
            push(
              "path-unsafe",
              [...fp, "path"],
              `path '${f.path}' is unsafe: ${problem}`,
              "write a normalised path inside the repository, e.g. docs/notes.md",
            );
          if (f.template !== undefined) fileRef(f.template, [...fp, "template"]);
        });
        step.paths?.forEach((g, i) => {
          const problem = repoPathProblem(templateSkeleton(g).replace(/\*\*?/g, "x"));
          if (problem)
            push(
              "path-unsafe",
              [...p, "paths", i],
              `path '${g}' is unsafe: ${problem}`,
              "write globs relative to the repository root",
            );
        });
        break;
      }
      case "branch": {
        if (!isTemplated(step.name)) {
          const problem = branchNameProblem(step.name);
          if (problem)
            push(
              "ref-invalid",
              [...p, "name"],
              `branch name '${step.name}' is not a valid git ref: ${problem}`,
              "use letters, digits, '-', '_', '.' and '/' (e.g. playbook/fix-123)",
            );
        } else {
          const problem = branchNameProblem(templateSkeleton(step.name));
          if (problem)
            push(
              "ref-invalid",
              [...p, "name"],
              `branch name '${step.name}' can never be a valid git ref: ${problem}`,
              "fix the literal parts of the name",
            );
        }
        break;
      }
      case "label":
        if (!step.add?.length && !step.remove?.length)
          push("step-shape", p, "a label step needs add: or remove:", "add add: [label]");
        break;
      case "ai": {
        if ((step.prompt === undefined) === (step.prompt_file === undefined)) {
          push(
            "step-shape",
            p,
            "an ai step needs exactly one of prompt: or prompt_file:",
            "keep prompt: (inline) or prompt_file: (a markdown file)",
          );
        }
        if (step.prompt_file !== undefined) fileRef(step.prompt_file, [...p, "prompt_file"]);
        if (step.scope === "write" && step.authority !== "ask-first") {
          const doms = dominators.get(s.id) ?? new Set<string>();
          const approved = [...doms].some(
            (id) => id !== s.id && graph.byId.get(id)?.step.type === "checkpoint",
          );
          if (!approved) {
            push(
              "ai-write-unapproved",
              [...p, "scope"],
              "write scope lets the model change things, but no checkpoint approves it first",
              "add a checkpoint on every path before this step, or set authority: ask-first",
            );
          }
        }
        step.expect_files?.forEach((f, i) => {
          const problem = repoPathProblem(templateSkeleton(f).replace(/\*\*?/g, "x"));
          if (problem)
            push(
              "path-unsafe",
              [...p, "expect_files", i],
              `path '${f}' is unsafe: ${problem}`,
              "write paths relative to the repository root",
            );
        });
        break;
      }
      case "checkpoint": {
        const a = step.approvers;
        if (
          a?.count !== undefined &&
          a.users &&
          !a.teams &&
          !a.permission &&
          a.users.length < a.count
        ) {
          push(
            "step-shape",
            [...p, "approvers", "count"],
            `${a.count} approvals are needed but only ${a.users.length} users may approve`,
            "lower count, or allow more approvers",
          );
        }
        if (step.reminder !== undefined && step.timeout === undefined) {
          push(
            "step-shape",
            [...p, "reminder"],
            "a reminder needs a timeout to remind before",
            "add timeout:, or remove reminder:",
            true,
          );
        }
        if (step.on_timeout !== undefined && step.timeout === undefined) {
          push(
            "step-shape",
            [...p, "on_timeout"],
            "on_timeout needs a timeout:",
            "add timeout: 24h",
            true,
          );
        }
        break;
      }
      default:
        break;
    }
  }
  return out;
}
