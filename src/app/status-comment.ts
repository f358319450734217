import { activeFrame, isFinished, type RunState } from "../engine/state.js";
import type { PlaybookBundle } from "../engine/steps/types.js";
import { describeApprovers, ASK_FIRST_APPROVERS } from "../engine/policy.js";
import { inert } from "../engine/render.js";
import { PlaybookGraph, stepTitle } from "../playbook/graph.js";
import { renderMermaid } from "../playbook/mermaid.js";
import { decodeSigned, encodeSigned, type DecodeFailure } from "../state/codec.js";

import { STATE_MARKER } from "../github/port.js";

export { STATE_MARKER, hasStateBlock } from "../github/port.js";
const BLOCK = new RegExp(`<!-- ${STATE_MARKER} ([A-Za-z0-9_.-]+) -->`);

/** GitHub refuses comment bodies over 65,536 characters; we stay well below. */
export const MAX_COMMENT_BODY = 60_000;

const STATUS_ICON: Record<RunState["status"], string> = {
  running: "🔄",
  waiting: "⏸️",
  completed: "✅",
  failed: "❌",
  cancelled: "🚫",
};

/** Text for a table cell: inert, with no pipe or line break to break the table. */
function cell(text: string): string {
  return inert(text).replace(/\|/g, "\\|").replace(/\r?\n/g, " ");
}

/** Who the current step waits for, in words. */
export function awaitedBy(run: RunState, bundle: PlaybookBundle | undefined): string | undefined {
  if (isFinished(run)) return undefined;
  const f = activeFrame(run);
  const step = bundle
    ? new PlaybookGraph(bundle.playbook).byId.get(f.current ?? "")?.step
    : undefined;
  if (f.phase === "approval") return `/approve from ${describeApprovers(ASK_FIRST_APPROVERS)}`;
  if (f.phase !== "waiting" || !step) return undefined;
  if (step.type === "checkpoint")
    return `/approve from ${describeApprovers(step.approvers)}${(step.approvers?.count ?? 1) > 1 ? ` (${step.approvers?.count} people)` : ""}`;
  if (step.type === "investigate")
    return "findings (/record key=value) and a choice (/choose <branch>) from people with triage access";
  if (f.awaiting?.pullRequest !== undefined)
    return `the merge of pull request #${f.awaiting.pullRequest}`;
  if (f.awaiting?.workflow !== undefined) return `workflow ${f.awaiting.workflow} to finish`;
  return undefined;
}

/**
 * The status comment: a checklist of steps, what the current step asks and of whom, a Mermaid
 * flowchart with the current step marked, and the signed state block. Edited in place as the
 * run moves, so the thread is not flooded.
 */
export function renderStatusComment(
  run: RunState,
  bundles: (id: string) => PlaybookBundle | undefined,
  secret: string,
): string {
  const root = run.stack[0];
  const rootBundle = root ? bundles(root.playbook) : undefined;
  const playbook = rootBundle?.playbook;
  const title = playbook?.name ?? root?.playbook ?? "playbook";
  const f = activeFrame(run);
  const lines: string[] = [];
  lines.push(`### ${STATUS_ICON[run.status]} ${inert(title)} · run \`${run.id}\``);
  lines.push("");
  lines.push(
    `**Status:** ${run.status}${run.error ? ` — ${inert(run.error.message)} (\`${run.error.code}\`)` : ""} · started by ${inert(`@${run.initiator}`)}`,
  );
  const bundle = bundles(f.playbook);
  const who = awaitedBy(run, bundle);
  if (who) lines.push(`**Waiting for:** ${who}`);
  if (run.error) lines.push(`**How to recover:** ${inert(run.error.guidance)}`);
  lines.push("");
  if (rootBundle && root) {
    const graph = new PlaybookGraph(rootBundle.playbook);
    for (const s of graph.steps) {
      const r = root.results[s.id];
      const current = !isFinished(run) && root.current === s.id;
      const mark = r?.status === "completed" ? "[x]" : "[ ]";
      const note =
        r?.status === "skipped"
          ? " _(skipped)_"
          : r?.status === "failed"
            ? " _(failed)_"
            : r?.status === "ignored"
              ? " _(failed, ignored)_"
              : "";
      const title = stepTitle(s.step);
      const label = `\`${s.id}\`${title !== s.id ? ` — ${inert(title)}` : ""}`;
      lines.push(
        `- ${mark} ${current ? `**${label}** ← current${run.stack.length > 1 ? ` (in \`${f.playbook}\`: \`${f.current}\`)` : ""}` : label}${note}`,
      );
    }
    const step = bundle
      ? new PlaybookGraph(bundle.playbook).byId.get(f.current ?? "")?.step
      : undefined;
    if (!isFinished(run) && step?.description) {
      lines.push(
        "",
        `> **${inert(stepTitle(step))}:** ${inert(step.description).replace(/\n/g, "\n> ")}`,
      );
    }
    if (run.end?.advice) lines.push("", inert(run.end.advice));
    const done = Object.entries(root.results)
      .filter(([, r]) => r.status === "completed")
      .map(([id]) => id);
    const chart = renderMermaid(
      rootBundle.playbook,
      isFinished(run) ? { done } : { done, current: root.current ?? "" },
    );
    lines.push(
      "",
      "<details><summary>Flowchart</summary>",
      "",
      "```mermaid",
      chart.trimEnd(),
      "```",
      "",
      "</details>",
    );
  }
  const trace = run.trace
    .slice(-8)
    .map(
      (t) =>
        `| ${t.end.slice(0, 16).replace("T", " ")} | ${t.step ? `\`${t.step}\`` : ""} | ${t.event}${t.actor ? ` by ${inert(`@${t.actor}`)}` : ""} | ${cell(t.outcome)} |`,
    );
  if (trace.length)
    lines.push(
      "",
      "<details><summary>Recent events</summary>",
      "",
      "| time (UTC) | step | event | outcome |",
      "|---|---|---|---|",
      ...trace,
      "",
      "</details>",
    );
  lines.push("", `<!-- ${STATE_MARKER} ${encodeSigned(run, secret)} -->`);
  let body = lines.join("\n");
  if (body.length > MAX_COMMENT_BODY) {
    // Drop the readable extras before the state: the state must always fit.
    body = [
      lines[0],
      lines[2],
      "",
      "_Details omitted: the comment would be too long._",
      "",
      `<!-- ${STATE_MARKER} ${encodeSigned(run, secret)} -->`,
    ].join("\n");
  }
  return body;
}

/** The run in a status comment, verified; a tampered or damaged block is reported, never used. */
export function readStatusComment(
  body: string,
  secret: string,
): { ok: true; run: RunState } | DecodeFailure | { ok: false; reason: "absent"; detail: string } {
  const m = BLOCK.exec(body);
  if (!m) return { ok: false, reason: "absent", detail: "no state block" };
  return decodeSigned(m[1] as string, secret);
}
