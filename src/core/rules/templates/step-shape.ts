import type { PathSegment } from "../../format/source.js";
import { diagnosticAt } from "../context.js";
import type { FileRule, Finding } from "../rule.js";

/** The fields of one step fit together: what a step of its kind needs, without contradictions. */
export const stepShape: FileRule<"step-shape"> = {
  code: "step-shape",
  layer: "templates",
  severity: "error",
  summary: "a step's fields do not fit together (e.g. a commit with neither files nor paths)",
  check({ doc, graph }) {
    const out: Finding<"step-shape">[] = [];
    const report = (at: PathSegment[], message: string, hint: string, key = false): void => {
      out.push(diagnosticAt(doc, "step-shape", at, message, hint, { key }));
    };
    for (const { step, path: p } of graph.steps) {
      switch (step.type) {
        case "commit":
          if (!step.files?.length && !step.paths?.length)
            report(
              p,
              "a commit step needs files: (content to write) or paths: (files to commit)",
              "add files: [{ path: …, content: … }]",
            );
          step.files?.forEach((f, i) => {
            if ((f.content === undefined) === (f.template === undefined))
              report(
                [...p, "files", i],
                "a file needs exactly one of content: or template:",
                "keep content: (inline) or template: (a file next to the playbook)",
              );
          });
          break;
        case "comment":
          if (step.reply_to !== undefined && step.issue === undefined)
            report(
              [...p, "reply_to"],
              "a reply to a review comment needs the pull request it belongs to",
              "add issue: <pull request number>",
              true,
            );
          break;
        case "label":
          if (!step.add?.length && !step.remove?.length)
            report(p, "a label step needs add: or remove:", "add add: [label]");
          break;
        case "ai":
          if ((step.prompt === undefined) === (step.prompt_file === undefined))
            report(
              p,
              "an ai step needs exactly one of prompt: or prompt_file:",
              "keep prompt: (inline) or prompt_file: (a markdown file)",
            );
          break;
        case "checkpoint": {
          const a = step.approvers;
          if (
            a?.count !== undefined &&
            a.users &&
            !a.teams &&
            !a.permission &&
            a.users.length < a.count
          )
            report(
              [...p, "approvers", "count"],
              `${a.count} approvals are needed but only ${a.users.length} users may approve`,
              "lower count, or allow more approvers",
            );
          if (step.reminder !== undefined && step.timeout === undefined)
            report(
              [...p, "reminder"],
              "a reminder needs a timeout to remind before",
              "add timeout:, or remove reminder:",
              true,
            );
          if (step.on_timeout !== undefined && step.timeout === undefined)
            report([...p, "on_timeout"], "on_timeout needs a timeout:", "add timeout: 24h", true);
          break;
        }
        default:
          break;
      }
    }
    return out;
  },
};
