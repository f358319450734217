import { activeFrame, isFinished, type RunState } from "../../core/engine/state.js";
import type { PlaybookBundle } from "../../core/steps/types.js";
import { describeApprovers, ASK_FIRST_APPROVERS } from "../../core/engine/policy.js";
import {
  checklist,
  code,
  codeBlock,
  details,
  emphasis,
  heading,
  issueRef,
  lines,
  paragraph,
  quote,
  renderMarkdown,
  strong,
  table,
  type Block,
  type BlockLike,
  type InlineLike,
} from "../../core/markdown/comment.js";
import { spans } from "../../core/markdown/replies.js";
import type { Text } from "mdast";
import { PlaybookGraph, stepTitle } from "../../core/format/graph.js";
import { renderMermaid } from "../../core/format/mermaid.js";
import {
  decodeSigned,
  encodeSigned,
  type DecodeFailure,
  type StateSeal,
} from "../../runtime/state-codec.js";

import { STATE_MARKER } from "../../runtime/github-port.js";

export { STATE_MARKER, hasStateBlock } from "../../runtime/github-port.js";
const BLOCK = new RegExp(`<!-- ${STATE_MARKER} (\\S+ [A-Za-z0-9_.-]+) -->`);

/** GitHub refuses comment bodies over 65,536 characters; we stay well below. */
export const MAX_COMMENT_BODY = 60_000;

const STATUS_ICON: Record<RunState["status"], string> = {
  running: "🔄",
  waiting: "⏸️",
  completed: "✅",
  failed: "❌",
  cancelled: "🚫",
};

/** Who the current step waits for, in words. */
export function awaitedBy(run: RunState, bundle: PlaybookBundle | undefined): string | undefined {
  return awaited(run, bundle)
    ?.map((p) => (typeof p === "string" ? p : p.value))
    .join("");
}

/** Who the current step waits for, as text (a pull request as a live reference). */
function awaited(run: RunState, bundle: PlaybookBundle | undefined): (string | Text)[] | undefined {
  if (isFinished(run)) return undefined;
  const f = activeFrame(run);
  const step = bundle
    ? new PlaybookGraph(bundle.playbook).byId.get(f.current ?? "")?.step
    : undefined;
  if (f.phase === "approval") return [`/approve from ${describeApprovers(ASK_FIRST_APPROVERS)}`];
  if (f.phase !== "waiting" || !step) return undefined;
  if (step.type === "checkpoint")
    return [
      `/approve from ${describeApprovers(step.approvers)}${(step.approvers?.count ?? 1) > 1 ? ` (${step.approvers?.count} people)` : ""}`,
    ];
  if (step.type === "investigate" || step.type === "playbook")
    return [
      "findings (/record key=value) and a choice (/choose <branch>) from people with triage access",
    ];
  if (f.awaiting?.pullRequest !== undefined)
    return ["the merge of pull request ", issueRef(f.awaiting.pullRequest)];
  if (f.awaiting?.workflow !== undefined) return [`workflow ${f.awaiting.workflow} to finish`];
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
  seal: StateSeal,
): string {
  const root = run.stack[0];
  const rootBundle = root ? bundles(root.playbook) : undefined;
  const playbook = rootBundle?.playbook;
  const title = playbook?.name ?? root?.playbook ?? "playbook";
  const f = activeFrame(run);
  const bundle = bundles(f.playbook);
  const who = awaited(run, bundle);
  const head: Block[] = [
    heading(3, `${STATUS_ICON[run.status]} `, title, " · run ", code(run.id)),
    lines(
      [
        strong("Status:"),
        ` ${run.status}`,
        run.error ? [" — ", run.error.message, " (", code(run.error.code), ")"] : [],
        ` · started by @${run.initiator}`,
      ],
      ...(who ? [[strong("Waiting for:"), " ", ...who]] : []),
      ...(run.error ? [[strong("How to recover:"), ` ${run.error.guidance}`]] : []),
    ),
  ];
  const blocks: BlockLike[] = [...head];
  if (rootBundle && root) {
    const graph = new PlaybookGraph(rootBundle.playbook);
    blocks.push(
      checklist(
        graph.steps.map((s) => {
          const r = root.results[s.id];
          const current = !isFinished(run) && root.current === s.id;
          const note =
            r?.status === "skipped"
              ? "(skipped)"
              : r?.status === "failed"
                ? "(failed)"
                : r?.status === "ignored"
                  ? "(failed, ignored)"
                  : undefined;
          const title = stepTitle(s.step);
          const label: InlineLike[] = [code(s.id), title !== s.id ? [" — ", title] : []];
          return {
            checked: r?.status === "completed",
            content: [
              current
                ? [
                    strong(label),
                    " ← current",
                    run.stack.length > 1
                      ? [" (in ", code(f.playbook), ": ", code(f.current ?? ""), ")"]
                      : [],
                  ]
                : label,
              note ? [" ", emphasis(note)] : [],
            ],
          };
        }),
      ),
    );
    const step = bundle
      ? new PlaybookGraph(bundle.playbook).byId.get(f.current ?? "")?.step
      : undefined;
    if (!isFinished(run) && step?.description)
      blocks.push(quote(paragraph(strong(stepTitle(step), ":"), " ", step.description)));
    if (run.end?.advice) blocks.push(paragraph(...spans(run.end.advice)));
    const done = Object.entries(root.results)
      .filter(([, r]) => r.status === "completed")
      .map(([id]) => id);
    const chart = renderMermaid(
      rootBundle.playbook,
      isFinished(run) ? { done } : { done, current: root.current ?? "" },
    );
    blocks.push(details("Flowchart", codeBlock(chart, "mermaid")));
  }
  const trace = run.trace
    .slice(-8)
    .map((t) => [
      t.end.slice(0, 16).replace("T", " "),
      t.step ? code(t.step) : "",
      `${t.event}${t.actor ? ` by @${t.actor}` : ""}`,
      t.outcome,
    ]);
  if (trace.length)
    blocks.push(details("Recent events", table(["time (UTC)", "step", "event", "outcome"], trace)));
  // The state block is appended as written by the codec: the last line, after a blank one.
  let body = `${renderMarkdown(...blocks)}\n\n<!-- ${STATE_MARKER} ${encodeSigned(run, seal)} -->`;
  if (body.length > MAX_COMMENT_BODY) {
    // Drop the readable extras before the state: the state must always fit.
    body = `${renderMarkdown(...head, paragraph(emphasis("Details omitted: the comment would be too long.")))}\n\n<!-- ${STATE_MARKER} ${encodeSigned(run, seal)} -->`;
  }
  return body;
}

/** The run in a status comment, verified; a tampered or damaged block is reported, never used. */
export function readStatusComment(
  body: string,
  seal: StateSeal,
): { ok: true; run: RunState } | DecodeFailure | { ok: false; reason: "absent"; detail: string } {
  const m = BLOCK.exec(body);
  if (!m) return { ok: false, reason: "absent", detail: "no state block" };
  return decodeSigned(m[1] as string, seal);
}
