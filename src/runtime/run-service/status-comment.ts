import { createHmac, timingSafeEqual } from "node:crypto";
import {
  activeFrame,
  isFinished,
  type Frame,
  type LaneEnd,
  type RunState,
} from "../../core/engine/state.js";
import type { PlaybookBundle } from "../../core/steps/types.js";
import { stepKind } from "../../core/steps/registry.js";
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
  list,
  paragraph,
  quote,
  renderMarkdown,
  strong,
  table,
  untrusted,
  type Block,
  type BlockLike,
  type InlineLike,
} from "../../core/markdown/comment.js";
import { authorMarkdown } from "../../core/markdown/author.js";
import type { Text } from "mdast";
import { graphOf, heldListNames, type PlaybookGraph, stepTitle } from "../../core/format/graph.js";
import { stepStatus } from "../../core/engine/state-bounds.js";
import { MERMAID_MAX_EDGES, neighbourhood, renderMermaid } from "../../core/format/mermaid.js";
import {
  decodeSigned,
  decodeUnverified,
  encodeSigned,
  type DecodeFailure,
  type StateSeal,
} from "../state-codec.js";

import { STATE_MARKER } from "../github-port.js";
import { RECONCILE_WINDOW_MS } from "../reconcile.js";

export { STATE_MARKER, hasStateBlock } from "../github-port.js";
const BLOCK = new RegExp(`<!-- ${STATE_MARKER} (\\S+ [A-Za-z0-9_.-]+) -->`);
/** The hidden, sealed open-run index some status comments carry (see `OpenRunIndex`). */
export const INDEX_MARKER = "playbook-bot:open-runs";
const INDEX_BLOCK = new RegExp(`<!-- ${INDEX_MARKER} ([A-Za-z0-9_-]+)\\.([A-Za-z0-9_-]{43}) -->`);

/**
 * The status comments of an issue's runs that may still move (open, or failed and retryable),
 * newest first, and the last events finished runs had handled (so a redelivery is still known
 * once its run has ended). Kept in the coordination store; every status comment the app saves
 * carries a sealed copy, so after a restart the newest status comment on the thread's last page
 * gives it back without listing every page.
 *
 * `started`: the event that started each run (a label event's `label-<id>:<playbook>`, a
 * command's `comment-<id>:<n>`, …) with when (epoch ms), kept by time — as long as a replay may
 * bring that event back (see `startedFor`) — never cut to a count: however many events a run
 * handles after its start, and whether it has finished, its start is never taken for new.
 */
export interface OpenRunIndex {
  open: string[];
  events: string[];
  started?: [string, number][];
}

/**
 * How long a run's start event is kept: the reconcile's window (a replay brings back only what was
 * asked for within it, and a run starts after what started it), and an hour for clocks that differ.
 */
export const STARTED_KEEP_MS = RECONCILE_WINDOW_MS + 3_600_000;

/** The index with `eventId` noted as a run's start at `now` (epoch ms), the expired ones dropped. */
export function withStarted(index: OpenRunIndex, eventId: string, now: number): OpenRunIndex {
  const kept = (index.started ?? []).filter(
    ([id, at]) => at >= now - STARTED_KEEP_MS && id !== eventId,
  );
  return { ...index, started: [...kept, [eventId, now]] };
}

/** Every event the index knows as handled: finished runs' last events, and runs' starts. */
export function handledEvents(index: OpenRunIndex): string[] {
  return [...index.events, ...(index.started ?? []).map(([id]) => id)];
}

/** At most this many ids of each kind: a bounded block in every status comment. */
export const MAX_INDEX_OPEN = 100;
export const MAX_INDEX_EVENTS = 30;

function indexMac(payload: string, seal: StateSeal): string {
  return createHmac("sha256", seal.key)
    .update(`playbook-bot open-runs\0${seal.issue}\0${seal.comment}\0${payload}`)
    .digest("base64url");
}

/** The index as a hidden line, sealed (like the state) to the comment and issue it is written in. */
export function renderIndexBlock(index: OpenRunIndex, seal: StateSeal): string {
  const bounded: OpenRunIndex = {
    open: index.open.filter((id) => /^[0-9]+$/.test(id)).slice(0, MAX_INDEX_OPEN),
    events: index.events.slice(-MAX_INDEX_EVENTS),
    ...(index.started?.length ? { started: index.started } : {}),
  };
  const payload = Buffer.from(JSON.stringify(bounded)).toString("base64url");
  return `<!-- ${INDEX_MARKER} ${payload}.${indexMac(payload, seal)} -->`;
}

/** The index in a status comment, only when its seal verifies for this comment; else undefined. */
export function readIndexBlock(body: string, seal: StateSeal): OpenRunIndex | undefined {
  const m = INDEX_BLOCK.exec(body);
  if (!m) return undefined;
  const [, payload, mac] = m as unknown as [string, string, string];
  const expected = Buffer.from(indexMac(payload, seal));
  const given = Buffer.from(mac);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined;
  try {
    const v = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as unknown;
    const o = v as Partial<OpenRunIndex>;
    const strings = (a: unknown): a is string[] =>
      Array.isArray(a) && a.every((x) => typeof x === "string");
    if (!strings(o.open) || !strings(o.events)) return undefined;
    const started = Array.isArray(o.started)
      ? o.started.filter(
          (x): x is [string, number] =>
            Array.isArray(x) && typeof x[0] === "string" && Number.isFinite(x[1]),
        )
      : [];
    return {
      open: o.open.filter((id) => /^[0-9]+$/.test(id)).slice(0, MAX_INDEX_OPEN),
      events: o.events.slice(-MAX_INDEX_EVENTS),
      ...(started.length ? { started } : {}),
    };
  } catch {
    return undefined;
  }
}

/** GitHub refuses comment bodies over 65,536 characters; we stay well below. */
export const MAX_COMMENT_BODY = 60_000;
/** Steps listed one by one; a longer playbook's checklist shows the steps around the current one. */
export const MAX_CHECKLIST_STEPS = 40;
/** The flowchart's share of the comment; a bigger one shows the steps around the current one. */
export const MAX_FLOWCHART_CHARS = 20_000;
/** Steps drawn around the current one when the whole flowchart is too big. */
export const FLOWCHART_NEIGHBOURHOOD = 40;
/** The longest excerpt of an `ai` step's answer the comment shows. */
export const MAX_AI_EXCERPT = 600;
/** The `ai` steps whose answers the comment shows (the latest ones). */
export const MAX_AI_ANSWERS = 3;

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
  return awaitedAt(activeFrame(run), bundle);
}

/** Who a line (a frame's own, or a lane's) waits for, as text. */
function awaitedAt(
  f: Pick<Frame, "phase" | "current" | "awaiting">,
  bundle: PlaybookBundle | undefined,
): (string | Text)[] | undefined {
  const step = bundle ? graphOf(bundle.playbook).byId.get(f.current ?? "")?.step : undefined;
  if (f.phase === "approval") return [`/approve from ${describeApprovers(ASK_FIRST_APPROVERS)}`];
  if (f.phase !== "waiting" || !step) return undefined;
  const answer = stepKind(step.type);
  if (answer?.answeredWith === "approval") {
    const approvers = answer.approvers?.(step);
    return [
      `/approve from ${describeApprovers(approvers)}${(approvers?.count ?? 1) > 1 ? ` (${approvers?.count} people)` : ""}`,
    ];
  }
  if (answer?.answeredWith === "findings")
    return [
      "findings (/record key=value) and a choice (/choose <branch>) from people with triage access",
    ];
  if (f.awaiting?.pullRequest !== undefined)
    return ["the merge of pull request ", issueRef(f.awaiting.pullRequest)];
  if (f.awaiting?.workflow !== undefined) return [`workflow ${f.awaiting.workflow} to finish`];
  return undefined;
}

const LANE_ENDS: Record<LaneEnd, string> = {
  completed: "done",
  failed: "failed",
  cancelled: "cancelled",
};

/**
 * The lines running side by side in the active frame, by fork: each branch, item or step of a
 * needs: list with its state (running, waiting for whom, done, failed, cancelled).
 */
function laneBlocks(f: Frame, bundle: PlaybookBundle | undefined): BlockLike[] {
  const blocks: BlockLike[] = [];
  const graph = bundle ? graphOf(bundle.playbook) : undefined;
  for (const [key, fork] of Object.entries(f.forks ?? {})) {
    const what =
      fork.kind === "parallel" ? "Branches" : fork.kind === "for_each" ? "Items" : "Steps";
    const step = graph?.byId.get(fork.step)?.step;
    const branches = step ? heldListNames(step) : [];
    // In the order they are written: branches, items, steps of the list.
    const order = (name: string): number =>
      fork.kind === "parallel"
        ? branches.indexOf(name)
        : fork.kind === "for_each"
          ? Number(name)
          : (graph?.byId.get(name)?.index ?? 0);
    const rows: { name: string; content: InlineLike }[] = [];
    for (const [name, end] of Object.entries(fork.ended))
      rows.push({
        name,
        content: [code(laneName(fork.kind, name, fork.items)), ` — ${LANE_ENDS[end]}`],
      });
    for (const lane of Object.values(f.lanes ?? {})) {
      if (lane.fork !== key) continue;
      const who =
        lane.phase === "waiting" || lane.phase === "approval" ? awaitedAt(lane, bundle) : undefined;
      rows.push({
        name: lane.name,
        content: [
          code(laneName(fork.kind, lane.name, fork.items)),
          " — ",
          who ? ["waiting for ", ...who] : lane.phase === "pending" ? "starting" : "running",
          lane.current && lane.current !== lane.name ? [" at ", code(lane.current)] : [],
        ],
      });
    }
    const items: InlineLike[] = rows
      .sort((x, y) => order(x.name) - order(y.name))
      .map((r) => r.content);
    const waiting = fork.kind === "for_each" ? (fork.items?.length ?? 0) - (fork.next ?? 0) : 0;
    if (waiting > 0) items.push(`${waiting} more item(s) to start`);
    blocks.push(paragraph(strong(`${what} of`), " ", code(fork.step), ":"), list(items));
  }
  return blocks;
}

/** A lane as people read it: a branch or step by name, an item by its value. */
function laneName(kind: string, name: string, items: readonly unknown[] | undefined): string {
  return kind === "for_each" ? `${name}: ${String(items?.[Number(name)] ?? "")}` : name;
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
  index?: OpenRunIndex,
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
  let chart: BlockLike[] = [];
  let answers: BlockLike[] = [];
  if (rootBundle && root) {
    const graph = graphOf(rootBundle.playbook);
    const lanesAt = new Set(Object.values(root.lanes ?? {}).map((l) => l.current ?? ""));
    blocks.push(...stepChecklist(run, graph, lanesAt));
    const step = bundle ? graphOf(bundle.playbook).byId.get(f.current ?? "")?.step : undefined;
    if (!isFinished(run)) blocks.push(...laneBlocks(f, bundle));
    if (!isFinished(run) && step?.description)
      blocks.push(quote(paragraph(strong(stepTitle(step), ":"), " ", step.description)));
    // The author's Markdown, as Markdown (the builder keeps it inert).
    if (run.end?.advice) blocks.push(...authorMarkdown(run.end.advice));
    chart = flowchart(run, rootBundle, graph, lanesAt);
    answers = aiAnswers(run.stack[0] as Frame, graph);
  }
  const trace = run.trace
    .slice(-8)
    .map((t) => [
      t.end.slice(0, 16).replace("T", " "),
      t.step ? code(t.step) : "",
      `${t.event}${t.actor ? ` by @${t.actor}` : ""}`,
      t.outcome,
    ]);
  const events = trace.length
    ? [details("Recent events", table(["time (UTC)", "step", "event", "outcome"], trace))]
    : [];
  // The state block is appended as written by the codec, after a blank line; the open-run index
  // (when given) is the last line.
  const hidden = `<!-- ${STATE_MARKER} ${encodeSigned(run, seal)} -->${index ? `\n${renderIndexBlock(index, seal)}` : ""}`;
  const omitted = (what: string) =>
    paragraph(emphasis(`${what} omitted: the comment would be too long.`));
  // The readable extras go first, the state never: each try drops more until the comment fits.
  const tries: BlockLike[][] = [
    [...blocks, ...answers, ...chart, ...events],
    [...blocks, ...answers, omitted("The flowchart"), ...events],
    [
      ...blocks,
      omitted(
        answers.length > 0
          ? "The AI answers, the flowchart and recent events"
          : "The flowchart and recent events",
      ),
    ],
    [...head, omitted("Details")],
  ];
  for (const t of tries) {
    const body = `${renderMarkdown(...t)}\n\n${hidden}`;
    if (body.length <= MAX_COMMENT_BODY) return body;
  }
  return `${renderMarkdown(...head, omitted("Details"))}\n\n${hidden}`;
}

/**
 * What the latest `ai` steps answered, each cut to a bounded excerpt. The answer is the model's,
 * so it is text only: escaped and neutralised like anything from outside (no mention, reference,
 * link, HTML or marker), inside a collapsed section.
 */
function aiAnswers(root: Frame, graph: PlaybookGraph): BlockLike[] {
  const shown: BlockLike[] = [];
  const answered = graph.steps.filter((s) => {
    const answer = root.results[s.id]?.outputs?.text;
    return s.step.type === "ai" && typeof answer === "string" && answer.trim() !== "";
  });
  for (const s of answered.slice(-MAX_AI_ANSWERS)) {
    const answer = String(root.results[s.id]?.outputs?.text).trim();
    const excerpt =
      answer.length > MAX_AI_EXCERPT ? `${answer.slice(0, MAX_AI_EXCERPT).trimEnd()} …` : answer;
    shown.push(
      paragraph(
        code(s.id),
        answer.length > MAX_AI_EXCERPT
          ? ` (the first ${MAX_AI_EXCERPT} of ${answer.length} characters):`
          : ":",
      ),
      quote(paragraph(untrusted(excerpt))),
    );
  }
  return shown.length > 0 ? [details("AI answers", ...shown)] : [];
}

/**
 * A step per line, ticked when done. A long playbook shows the steps around the current one
 * (or, once the run is over, its last ones), and says how many others are done or to come.
 */
function stepChecklist(run: RunState, graph: PlaybookGraph, lanesAt: Set<string>): BlockLike[] {
  const root = run.stack[0] as Frame;
  const f = activeFrame(run);
  const status = (id: string) => stepStatus(root, graph, id);
  const item = (s: PlaybookGraph["steps"][number]) => {
    const ended = status(s.id);
    const current = !isFinished(run) && root.current === s.id;
    const running = !isFinished(run) && lanesAt.has(s.id);
    const note =
      ended === "skipped"
        ? "(skipped)"
        : ended === "failed"
          ? "(failed)"
          : ended === "ignored"
            ? "(failed, ignored)"
            : undefined;
    const title = stepTitle(s.step);
    const label: InlineLike[] = [code(s.id), title !== s.id ? [" — ", title] : []];
    return {
      checked: ended === "completed",
      content: [
        current
          ? [
              strong(label),
              " ← current",
              run.stack.length > 1
                ? [" (in ", code(f.playbook), ": ", code(f.current ?? ""), ")"]
                : [],
            ]
          : running
            ? [label, " ← running"]
            : label,
        note ? [" ", emphasis(note)] : [],
      ],
    };
  };
  const steps = graph.steps;
  if (steps.length <= MAX_CHECKLIST_STEPS) return [checklist(steps.map(item))];
  const at = steps.findIndex((s) => s.id === (isFinished(run) ? undefined : root.current));
  const lastDone = steps.reduce((n, s, i) => (status(s.id) ? i : n), 0);
  const center = at >= 0 ? at : lastDone;
  const from = Math.max(0, Math.min(center - 10, steps.length - MAX_CHECKLIST_STEPS));
  const to = Math.min(steps.length, from + MAX_CHECKLIST_STEPS);
  const tally = (part: typeof steps) => {
    const done = part.filter((s) => status(s.id) === "completed").length;
    const other = part.length - done;
    return `${part.length} step${part.length === 1 ? "" : "s"}: ${done} done${other ? `, ${other} not` : ""}`;
  };
  const out: BlockLike[] = [];
  if (from > 0) out.push(paragraph(emphasis(`… ${tally(steps.slice(0, from))} before these`)));
  out.push(checklist(steps.slice(from, to).map(item)));
  if (to < steps.length) out.push(paragraph(emphasis(`… ${tally(steps.slice(to))} after these`)));
  return out;
}

/**
 * The flowchart, whole; or, when Mermaid would refuse it or it would crowd the comment, the
 * steps around where the run stands, saying so.
 */
function flowchart(
  run: RunState,
  bundle: PlaybookBundle,
  graph: PlaybookGraph,
  lanesAt: Set<string>,
): BlockLike[] {
  const root = run.stack[0] as Frame;
  const done = graph.steps
    .filter((s) => stepStatus(root, graph, s.id) === "completed")
    .map((s) => s.id);
  const marks = isFinished(run)
    ? { done }
    : { done, current: root.current ?? "", running: [...lanesAt] };
  const edges = graph.steps.reduce((n, s) => n + graph.resolvedSuccessors(s.id).length, 0);
  const whole = edges <= MERMAID_MAX_EDGES ? renderMermaid(bundle.playbook, marks) : undefined;
  if (whole && whole.length <= MAX_FLOWCHART_CHARS)
    return [details("Flowchart", codeBlock(whole, "mermaid"))];
  const center = (!isFinished(run) && root.current) || done[done.length - 1] || "";
  const only = neighbourhood(bundle.playbook, center, FLOWCHART_NEIGHBOURHOOD);
  const part = renderMermaid(bundle.playbook, { ...marks, only });
  return [
    details(
      "Flowchart (around the current step)",
      paragraph(
        emphasis(
          `The whole flowchart (${graph.steps.length} steps, ${edges} edges) is too big to draw here; these are the ${only.size} steps around `,
          center ? code(center) : "the start",
          ". ",
          code("playbook-bot graph <file>"),
          " draws it all.",
        ),
      ),
      codeBlock(part, "mermaid"),
    ),
  ];
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

/** A status comment's run without verifying its seal: for reading only (see decodeUnverified). */
export function readStatusUnverified(
  body: string,
): { ok: true; run: RunState } | DecodeFailure | { ok: false; reason: "absent"; detail: string } {
  const m = BLOCK.exec(body);
  if (!m) return { ok: false, reason: "absent", detail: "no state block" };
  return decodeUnverified(m[1] as string);
}
