import { isFinished, type RunState } from "../engine/state.js";
import { stepStatus } from "../engine/state-bounds.js";
import { PlaybookGraph } from "../format/graph.js";
import type { PlaybookDocument } from "../format/types.js";
import { answeredWithApproval } from "../steps/registry.js";
import type { FindingValue, RunEvidence, StepVisit } from "./evidence.js";

/**
 * What a run shows of the work done, read from its state: the steps of its own playbook it
 * entered, oldest first — their status, the branch chosen at an investigation, the findings it
 * expected and got, who approved a checkpoint. A step whose result was folded (a long run) is
 * known by its status only, placed by the playbook's order among the others without a time.
 */
export function runEvidenceOf(run: RunState, playbook: PlaybookDocument | undefined): RunEvidence {
  const frame = run.stack[0];
  const status: RunEvidence["status"] =
    run.status === "completed" || run.status === "failed" || run.status === "cancelled"
      ? run.status
      : run.status === "waiting"
        ? "waiting"
        : "running";
  const evidence: RunEvidence = {
    playbook: frame?.playbook ?? "",
    runId: run.id,
    status: isFinished(run) ? status : status === "waiting" ? "waiting" : "running",
    path: [],
  };
  if (!frame) return evidence;
  const graph = playbook ? new PlaybookGraph(playbook) : undefined;
  const visits: (StepVisit & { order: number })[] = [];
  const ids = graph ? graph.steps.map((s) => s.id) : Object.keys(frame.results);
  ids.forEach((id, order) => {
    const kept = frame.results[id];
    const s = graph?.byId.get(id)?.step;
    const known = graph ? stepStatus(frame, graph, id) : kept?.status;
    if (known === undefined) return;
    const visit: StepVisit & { order: number } = {
      step: id,
      kind: s?.type ?? "unknown",
      status:
        known === "completed" || known === "skipped" || known === "failed"
          ? known
          : known === "ignored"
            ? "skipped"
            : "waiting",
      order,
    };
    if (kept?.at) visit.at = kept.at;
    const outputs = kept?.outputs ?? {};
    if (typeof outputs.chosen === "string") visit.choice = outputs.chosen;
    if (s?.type === "investigate") {
      const found: Record<string, FindingValue> = {};
      for (const key of s.expected_findings ?? []) {
        const v = frame.findings[key];
        if (v !== undefined && v !== null) found[key] = v;
      }
      if (Object.keys(found).length > 0) visit.findings = found;
    }
    if (answeredWithApproval(s) && Array.isArray(outputs.approved_by)) {
      const by = outputs.approved_by.filter((x): x is string => typeof x === "string");
      if (by.length > 0) visit.approvals = by.map((b) => ({ by: b, decision: "approve" }));
    }
    if (answeredWithApproval(s) && kept?.status === "failed" && kept.error?.code === "PB-REJECTED")
      visit.approvals = [{ by: rejecter(kept.error.message), decision: "reject" }];
    visits.push(visit);
  });
  // By time where known; a folded step keeps its place in the playbook's order.
  visits.sort((a, b) => {
    const ta = a.at ? Date.parse(a.at) : NaN;
    const tb = b.at ? Date.parse(b.at) : NaN;
    return Number.isNaN(ta) || Number.isNaN(tb) ? a.order - b.order : ta - tb || a.order - b.order;
  });
  evidence.path = visits.map(({ order: _order, ...v }) => v);
  return evidence;
}

/** Who rejected, from the engine's message (`'<step>' was rejected by @login: …`). */
function rejecter(message: string): string {
  return /rejected by @([A-Za-z0-9-]{1,39})/.exec(message)?.[1] ?? "unknown";
}
