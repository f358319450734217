import type { DiagnosticInput } from "../../format/diagnostics.js";
import { formatPath, type PathSegment } from "../../format/source.js";
import type { DecideStep, DecisionRule } from "../../format/types.js";
import { didYouMean } from "../../util/suggest.js";
import type { GateContext } from "./context.js";

/** Structure of the step graph: ids, targets, branches, terminals, reachability, cycles, rules. */
export function graphGate(ctx: GateContext): DiagnosticInput[] {
  const { doc, playbook, graph } = ctx;
  const out: DiagnosticInput[] = [];
  const at = (path: PathSegment[], key = false) => ({
    path: formatPath(path),
    span: doc.span(path, key),
  });
  const ids = graph.steps.map((s) => s.id);

  if (playbook.steps && playbook.nodes) {
    out.push({
      rule: "steps-and-nodes",
      ...at(["nodes"], true),
      message: "nodes: a playbook has either a steps list or a nodes map, not both",
      hint: "keep steps (linear, falls through) or nodes with an entrypoint (graph)",
    });
    return out;
  }
  if (!playbook.steps && !playbook.nodes) {
    out.push({
      rule: "steps-and-nodes",
      ...at([]),
      message: "playbook has no steps: add a steps list or a nodes map with an entrypoint",
      hint: "add `steps:` with at least one step",
    });
    return out;
  }

  // Step ids: unique; in nodes mode the key is the id and an explicit id must agree.
  const first = new Map<string, PathSegment[]>();
  for (const s of graph.steps) {
    const writtenId = graph.mode === "nodes" ? playbook.nodes?.[s.id]?.id : undefined;
    if (writtenId !== undefined && writtenId !== s.id) {
      out.push({
        rule: "step-duplicate-id",
        ...at([...s.path, "id"]),
        message: `${formatPath([...s.path, "id"])}: id '${writtenId}' differs from the node's key '${s.id}'`,
        hint: "remove the id field; in a nodes map the key is the id",
      });
    }
    const prev = first.get(s.id);
    if (prev) {
      const p = doc.span(prev);
      out.push({
        rule: "step-duplicate-id",
        ...at([...s.path, "id"]),
        message: `${formatPath([...s.path, "id"])}: step id '${s.id}' is already used at line ${p.line}`,
        found: `'${s.id}'`,
        hint: "give every step its own id",
      });
    } else first.set(s.id, [...s.path, "id"]);
  }

  if (graph.mode === "nodes") {
    if (playbook.entrypoint === undefined) {
      out.push({
        rule: "entrypoint-unresolved",
        ...at([]),
        message: "a nodes graph needs an entrypoint naming its first node",
        hint: `add 'entrypoint: ${ids[0] ?? "<node id>"}'`,
      });
    } else if (!graph.byId.has(playbook.entrypoint)) {
      const guess = didYouMean(playbook.entrypoint, ids);
      out.push({
        rule: "entrypoint-unresolved",
        ...at(["entrypoint"]),
        message: `entrypoint: '${playbook.entrypoint}' names no node${guess ? ` — did you mean '${guess}'?` : ""}`,
        found: `'${playbook.entrypoint}'`,
        expected: `one of: ${ids.join(", ")}`,
        hint: guess ? `write '${guess}'` : "name one of the nodes",
      });
    }
  } else if (playbook.entrypoint !== undefined) {
    out.push({
      rule: "steps-and-nodes",
      ...at(["entrypoint"], true),
      message:
        "entrypoint: only a nodes graph has an entrypoint; a steps list starts with its first step",
      hint: "remove entrypoint, or write the steps as a nodes map",
    });
  }

  for (const s of graph.steps) {
    const step = s.step;
    // Edges: targets exist, no self-loops.
    for (const e of graph.successors(s.id)) {
      if (e.kind === "fall-through") continue;
      if (!graph.byId.has(e.to)) {
        const guess = didYouMean(e.to, ids);
        out.push({
          rule:
            e.kind === "reject" || e.kind === "timeout" ? "checkpoint-target" : "goto-unresolved",
          ...at(e.path),
          message: `${formatPath(e.path)}: '${e.to}' names no step${guess ? ` — did you mean '${guess}'?` : ""}`,
          found: `'${e.to}'`,
          expected: "the id of a step in this playbook",
          hint: guess ? `write '${guess}'` : "name an existing step, or add the step",
        });
      } else if (e.to === s.id) {
        out.push({
          rule: "self-loop",
          ...at(e.path),
          message: `${formatPath(e.path)}: step '${s.id}' branches to itself`,
          hint: "route through a distinct step (for a retry, use on_error: retry:N)",
        });
      }
    }

    const next = step.next;
    if (Array.isArray(next)) {
      let hasWhen = false;
      let hasCondition = false;
      let hasDefault = false;
      const labels = new Map<string, number>();
      next.forEach((b, i) => {
        const bp: PathSegment[] = [...s.path, "next", i];
        const kinds = ["when", "condition", "default"].filter(
          (k) => (b as Record<string, unknown>)[k] !== undefined,
        );
        if (kinds.length !== 1) {
          out.push({
            rule: "branch-empty",
            ...at(bp),
            message:
              kinds.length === 0
                ? `${formatPath(bp)}: a branch needs when:, condition: or default:`
                : `${formatPath(bp)}: a branch has one of when:, condition: or default:, not ${kinds.join(" and ")}`,
            hint: "write { when: <expression>, goto: <step> }, { condition: <prose>, goto: <step> } or { default: <step> }",
          });
          return;
        }
        if (b.default !== undefined) {
          if (hasDefault) {
            out.push({
              rule: "branch-empty",
              ...at(bp),
              message: `${formatPath(bp)}: a step has one default branch only`,
              hint: "remove the extra default",
            });
          }
          hasDefault = true;
          if (b.goto !== undefined || b.label !== undefined) {
            out.push({
              rule: "branch-empty",
              ...at(bp),
              message: `${formatPath(bp)}: a default branch names its target itself: { default: <step> }`,
              hint: "remove goto/label from the default branch",
            });
          }
          return;
        }
        const text = (b.when ?? b.condition ?? "").trim();
        if (b.when !== undefined) hasWhen = true;
        if (b.condition !== undefined) hasCondition = true;
        if (text === "") {
          out.push({
            rule: "branch-empty",
            ...at([...bp, b.when !== undefined ? "when" : "condition"]),
            message: `${formatPath(bp)}: the branch's ${b.when !== undefined ? "when" : "condition"} is empty`,
            hint: "say when this branch applies",
          });
        }
        if (b.goto === undefined) {
          out.push({
            rule: "goto-unresolved",
            ...at(bp),
            message: `${formatPath(bp)}: the branch has no goto`,
            hint: "add goto: <step id>",
          });
        }
        if (b.label !== undefined && b.when !== undefined) {
          out.push({
            rule: "branch-mixed",
            ...at([...bp, "label"], true),
            message: `${formatPath([...bp, "label"])}: only prose condition branches have a /choose label`,
            hint: "remove the label",
          });
        }
        if (b.condition !== undefined) {
          const label = b.label ?? b.goto ?? "";
          const prev = labels.get(label);
          if (prev !== undefined) {
            out.push({
              rule: "branch-duplicate-label",
              ...at(bp),
              message: `${formatPath(bp)}: '/choose ${label}' would be ambiguous: branch ${prev} has the same label`,
              hint: "give each prose branch its own label:",
            });
          } else labels.set(label, i);
        }
      });
      if (hasWhen && hasCondition) {
        out.push({
          rule: "branch-mixed",
          ...at([...s.path, "next"]),
          message: `${formatPath([...s.path, "next"])}: step '${s.id}' mixes when: expressions and condition: prose`,
          hint: "use when: branches (decided by the engine) or condition: branches (chosen with /choose), not both",
        });
      }
      if (graph.mode === "nodes" && hasWhen && !hasDefault) {
        out.push({
          rule: "goto-unresolved",
          ...at([...s.path, "next"]),
          message: `${formatPath([...s.path, "next"])}: in a nodes graph, when: branches need a default: for when none is true`,
          hint: "add { default: <step id> }",
        });
      }
    }

    if (step.type === "end" && step.next !== undefined) {
      out.push({
        rule: "handoff-not-terminal",
        ...at([...s.path, "next"], true),
        message: `${formatPath([...s.path, "next"])}: an end step ends the run and cannot have next`,
        hint: "remove next, or use another step kind",
      });
    }
    if (step.type === "playbook") {
      if (step.mode === "handoff" && step.next !== undefined) {
        out.push({
          rule: "handoff-not-terminal",
          ...at([...s.path, "next"], true),
          message: `${formatPath([...s.path, "next"])}: a handoff ends this run, so it cannot have next`,
          hint: "remove next, or use mode: delegate to come back here",
        });
      }
      if (step.mode === "delegate" && graph.mode === "nodes" && step.next === undefined) {
        out.push({
          rule: "delegate-shape",
          ...at(s.path),
          message: `${formatPath(s.path)}: a delegating node needs next: to resume the parent after the child ends`,
          hint: "add next: <node id> (or branches over the child's findings)",
        });
      }
    }
    if (step.type === "decide") out.push(...decideRules(ctx, step, s.path));
  }

  const reach = graph.reachable();
  if (graph.entry && graph.byId.has(graph.entry)) {
    for (const s of graph.steps) {
      if (!reach.has(s.id) && first.get(s.id)?.[1] === s.path[1]) {
        out.push({
          rule: "unreachable",
          ...at(graph.mode === "nodes" ? s.path : [...s.path, "id"], graph.mode === "nodes"),
          message: `${formatPath(s.path)}: step '${s.id}' can never be reached from '${graph.entry}'`,
          hint: "add a branch that targets it or remove it",
        });
      }
    }
    // With a target missing, "no terminal" would only repeat that error in other words.
    const unresolved = out.some(
      (d) => d.rule === "goto-unresolved" || d.rule === "checkpoint-target",
    );
    if (!unresolved && ![...reach].some((id) => graph.isTerminal(id))) {
      out.push({
        rule: "terminal-missing",
        ...at(graph.mode === "nodes" ? ["nodes"] : ["steps"], true),
        message: "no reachable step ends the playbook: every path loops forever",
        hint: "add an end step (or a node without next) that a branch leads to",
      });
    }
    const cycle = graph.findCycle();
    if (cycle && playbook.limits?.max_steps === undefined) {
      out.push({
        rule: "cycle-without-limit",
        ...at(graph.byId.get(cycle[0] as string)?.path ?? []),
        message: `steps loop (${cycle.join(" → ")}) but limits.max_steps is not set`,
        hint: "add limits: { max_steps: N } so a run that keeps looping stops",
      });
    }
  }

  // Findings used in decision rules should be expected by some step. A delegated child's
  // findings are visible to the parent, so with a delegate step any key may be expected there.
  const expected = expectedFindings(ctx);
  const delegates = graph.steps.some(
    (s) => s.step.type === "playbook" && s.step.mode === "delegate",
  );
  for (const s of delegates ? [] : graph.steps) {
    if (s.step.type !== "decide") continue;
    s.step.rules.forEach((r, i) => {
      for (const key of ["all", "any", "none"] as const) {
        (r[key] ?? []).forEach((f, j) => {
          if (expected.has(f)) return;
          const p: PathSegment[] = [...s.path, "rules", i, key, j];
          const guess = didYouMean(f, [...expected]);
          out.push({
            rule: "finding-unknown",
            ...at(p),
            message: `${formatPath(p)}: finding '${f}' is used here but no step expects it${guess ? ` — did you mean '${guess}'?` : ""}`,
            hint: "list it in an investigate or ai step's expected_findings",
          });
        });
      }
    });
  }
  return out;
}

/** Every finding key some step of this playbook expects. */
export function expectedFindings(ctx: GateContext): Set<string> {
  const out = new Set<string>();
  for (const s of ctx.graph.steps) {
    const step = s.step;
    if (step.type === "investigate" || step.type === "ai")
      for (const f of step.expected_findings ?? []) out.add(f);
  }
  return out;
}

/**
 * First match wins, so a rule is dead when an earlier rule matches every finding set that it
 * matches: the earlier rule's all ⊆ its all, none ⊆ its none, and (if the earlier has any) one
 * of those is among its all.
 */
function decideRules(ctx: GateContext, step: DecideStep, path: PathSegment[]): DiagnosticInput[] {
  const out: DiagnosticInput[] = [];
  const seen = new Map<string, number>();
  step.rules.forEach((rule, i) => {
    const rp: PathSegment[] = [...path, "rules", i];
    const dup = seen.get(rule.id);
    if (dup !== undefined) {
      out.push({
        rule: "step-duplicate-id",
        path: formatPath([...rp, "id"]),
        span: ctx.doc.span([...rp, "id"]),
        message: `${formatPath([...rp, "id"])}: rule id '${rule.id}' is already used by rules[${dup}]`,
        hint: "give every rule its own id",
      });
    } else seen.set(rule.id, i);
    const all = new Set(rule.all ?? []);
    const none = new Set(rule.none ?? []);
    if ([...all].some((f) => none.has(f))) return; // unsatisfiable; shadowing is moot
    for (let k = 0; k < i; k++) {
      const earlier = step.rules[k] as DecisionRule;
      if (entails(rule, earlier)) {
        out.push({
          rule: "rule-shadowed",
          path: formatPath(rp),
          span: ctx.doc.span([...rp, "id"]),
          message: `${formatPath(rp)}: rule '${rule.id}' can never match: rule '${earlier.id}' above it matches whenever it does (first match wins)`,
          hint: `move '${rule.id}' above '${earlier.id}' (more specific rules first) or remove it`,
        });
        break;
      }
    }
  });
  return out;
}

/** Whether every finding set matching `rule` also matches `earlier`. */
function entails(rule: DecisionRule, earlier: DecisionRule): boolean {
  const all = new Set(rule.all ?? []);
  const none = new Set(rule.none ?? []);
  if (!(earlier.all ?? []).every((f) => all.has(f))) return false;
  if (!(earlier.none ?? []).every((f) => none.has(f))) return false;
  const any = earlier.any ?? [];
  return any.length === 0 || any.some((f) => all.has(f));
}
