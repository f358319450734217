import { dominatorsOf } from "../../rules/analysis/graph.js";
import { diagnosticAt } from "../../rules/context.js";
import type { FileRule, Finding } from "../../rules/rule.js";
import { didYouMean } from "../../util/suggest.js";
import { verifierNamed, verifierNames } from "./verifiers.js";

const GUIDANCE = "add a checkpoint on every path before this step, or set authority: ask-first";

/** An ai step that may write is approved first: a checkpoint on every path to it, or ask-first. */
export const aiWriteUnapproved: FileRule<"ai-write-unapproved"> = {
  code: "ai-write-unapproved",
  layer: "templates",
  severity: "error",
  summary: "an ai step with write scope has no checkpoint or ask-first approval before it",
  guidance: GUIDANCE,
  check(ctx) {
    const { doc, graph } = ctx;
    const out: Finding<"ai-write-unapproved">[] = [];
    for (const s of graph.steps) {
      const step = s.step;
      if (step.type !== "ai" || step.scope !== "write" || step.authority === "ask-first") continue;
      const doms = dominatorsOf(ctx).get(s.id)?.ids() ?? [];
      const approved = doms.some(
        (id) => id !== s.id && graph.byId.get(id)?.step.type === "checkpoint",
      );
      if (!approved)
        out.push(
          diagnosticAt(
            doc,
            "ai-write-unapproved",
            [...s.path, "scope"],
            "write scope lets the model change things, but no checkpoint approves it first",
            GUIDANCE,
          ),
        );
    }
    return out;
  },
};

/** `verify:` names a check registered in the bot's code; an unknown name would fail every run. */
export const verifyUnknown: FileRule<"verify-unknown"> = {
  code: "verify-unknown",
  layer: "templates",
  severity: "error",
  summary: "an ai step's verify names no registered check",
  check({ doc, graph }) {
    const out: Finding<"verify-unknown">[] = [];
    for (const s of graph.steps) {
      if (s.step.type !== "ai" || s.step.verify === undefined) continue;
      if (verifierNamed(s.step.verify)) continue;
      const guess = didYouMean(s.step.verify, verifierNames());
      out.push(
        diagnosticAt(
          doc,
          "verify-unknown",
          [...s.path, "verify"],
          `no check named '${s.step.verify}' is registered${guess ? ` — did you mean '${guess}'?` : ""}`,
          `use one of: ${verifierNames().join(", ")} (checks are functions in the bot's code, never in a playbook)`,
        ),
      );
    }
    return out;
  },
};
