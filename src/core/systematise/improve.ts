/**
 * Runs teach playbooks: what the runs of a playbook show, across issues, turned into changes to
 * its file — work people did by hand after a run ended or while it waited becomes a new
 * investigation where it happened; a step every run skipped goes; an approval every run gave
 * (never refused, in at least `minRuns` runs) is lowered. The author's file is kept as written:
 * each change is a few edits of its text (located by the parser's source positions), checked to
 * read back as the change meant, then validated by the project's validator; a change that does
 * not validate is left out and said so. The golden cases the change touches are adjusted with it
 * where that can be done without running them, and the change is left out otherwise. Pure.
 */
import { graphOf, type Edge, type GraphStep, type PlaybookGraph } from "../format/graph.js";
import { loadSourceText, type PathSegment, type SourceDocument } from "../format/source.js";
import type { PlaybookDocument, Step, TestCase, TestEvent } from "../format/types.js";
import {
  answeredWithApproval,
  canStopTheRun,
  endsPlaybook,
  expectedFindingsOf,
  hasSideEffects,
} from "../steps/registry.js";
import type { KnownPlaybook } from "../rules/validate.js";
import { checkPlaybookText, sameData, serialisePlaybook } from "./check.js";
import { instant, type FindingValue, type RunAdhoc, type RunEvidence } from "./evidence.js";
import { asFindingValue, asId, oneLine, prose, stripControls } from "./sanitise.js";
import { SourceEditor } from "./text-edit.js";

export interface ImprovementOptions {
  /** Runs needed before a step counts as always skipped or an approval as always given (3). */
  minRuns?: number;
  /** Playbooks the validation knows besides this one (the bundled library). */
  known?: KnownPlaybook[];
  /** The file's name in messages (default `<id>.yaml`). */
  file?: string;
  /** Findings a new investigation expects at most (20), characters of its description (2000). */
  maxFindings?: number;
  maxProseChars?: number;
}

export interface ProposedChange {
  kind: "add-investigation" | "remove-step" | "lower-approval";
  /** The step added, removed or lowered. */
  step: string;
  /** Why, from the runs. */
  reason: string;
  /** The golden cases changed with it, and how. */
  tests: string[];
}

export type Improvement =
  | {
      status: "proposed";
      yaml: string;
      playbook: PlaybookDocument;
      changes: ProposedChange[];
      /** The changes and what was seen but not changed, for the pull request's reviewers. */
      summary: string[];
      /** `kept`: only the changed parts of the author's text differ; `rewritten`: re-serialised. */
      formatting: "kept" | "rewritten";
    }
  /** Nothing to change in the file, but something worth telling (e.g. a removal that would break references). */
  | { status: "advice"; summary: string[] }
  /** The playbook as given does not validate (or is not a v1 file): nothing is proposed. */
  | { status: "invalid"; problems: string[]; summary: string[] };

/** One edit of the playbook, applied alike to its value and (as text edits) to its file. */
type Op =
  | { op: "set"; path: PathSegment[]; value: unknown }
  | { op: "remove"; path: PathSegment[] }
  | { op: "insertItem"; path: PathSegment[]; after: number; value: unknown; flowFrom: number }
  | { op: "insertEntry"; path: PathSegment[]; key: string; value: unknown; after?: string };

interface Plan {
  change: ProposedChange;
  ops: Op[];
}

interface State {
  text: string;
  doc: SourceDocument;
  value: Record<string, unknown>;
  playbook: PlaybookDocument;
  graph: PlaybookGraph;
}

const clone = <T>(v: T): T => structuredClone(v);

function at(root: unknown, path: readonly PathSegment[]): unknown {
  let v = root;
  for (const seg of path) {
    if (typeof v !== "object" || v === null) return undefined;
    v = (v as Record<string | number, unknown>)[seg];
  }
  return v;
}

/** Apply ops to a copy of a value: sets first, then structural edits, deepest and last first. */
export function applyOps(value: unknown, ops: readonly Op[]): unknown {
  const out = clone(value);
  for (const o of ops) {
    if (o.op !== "set") continue;
    const parent = at(out, o.path.slice(0, -1)) as Record<string | number, unknown>;
    parent[o.path[o.path.length - 1] as string] = clone(o.value);
  }
  const indexOf = (o: Op): number =>
    o.op === "remove"
      ? Number(o.path[o.path.length - 1])
      : o.op === "insertItem"
        ? o.after + 0.5
        : 0;
  const structural = ops
    .filter((o) => o.op !== "set")
    .sort((a, b) => b.path.length - a.path.length || indexOf(b) - indexOf(a));
  for (const o of structural) {
    if (o.op === "remove") {
      const parent = at(out, o.path.slice(0, -1));
      const last = o.path[o.path.length - 1] as PathSegment;
      if (Array.isArray(parent)) parent.splice(Number(last), 1);
      else delete (parent as Record<string, unknown>)[last as string];
    } else if (o.op === "insertItem") {
      (at(out, o.path) as unknown[]).splice(o.after + 1, 0, clone(o.value));
    } else if (o.op === "insertEntry") {
      const map = at(out, o.path) as Record<string, unknown>;
      const entries = Object.entries(map);
      const i = o.after === undefined ? -1 : entries.findIndex(([k]) => k === o.after);
      entries.splice(i === -1 ? entries.length : i + 1, 0, [o.key, clone(o.value)]);
      for (const k of Object.keys(map)) delete map[k];
      for (const [k, v] of entries) map[k] = v;
    }
  }
  return out;
}

function editText(doc: SourceDocument, ops: readonly Op[]): string | undefined {
  const editor = new SourceEditor(doc);
  for (const o of ops) {
    const ok =
      o.op === "set"
        ? editor.setValue(o.path, o.value)
        : o.op === "remove"
          ? editor.remove(o.path)
          : o.op === "insertItem"
            ? editor.insertItem(o.path, o.after, o.value, o.flowFrom)
            : editor.insertEntry(o.path, o.key, o.value, o.after);
    if (!ok) return undefined;
  }
  return editor.result();
}

function stateOf(file: string, text: string): State | undefined {
  const loaded = loadSourceText(file, text);
  if (!loaded.ok || typeof loaded.document.value !== "object" || loaded.document.value === null)
    return undefined;
  const value = loaded.document.value as Record<string, unknown>;
  const playbook = value as unknown as PlaybookDocument;
  return { text, doc: loaded.document, value, playbook, graph: graphOf(playbook) };
}

const depth0 = (step: string): boolean => !step.includes("/");
const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;
const quote = (s: string): string => `'${oneLine(s, 80)}'`;

/** Whether a step, or an entry of a golden case's path, can stop a run until something happens. */
function canWait(playbook: PlaybookDocument, graph: PlaybookGraph, entry: string): boolean {
  if (!depth0(entry)) return true;
  const step = graph.byId.get(entry)?.step;
  if (!step) return true;
  if (
    step.authority === "ask-first" ||
    playbook.interaction_mode?.includes("needs_review") ||
    playbook.authority?.ask_first_below !== undefined ||
    (step.authority === undefined &&
      playbook.authority?.default === "ask-first" &&
      hasSideEffects(step))
  )
    return true;
  return canStopTheRun(step);
}

/** Where a step is referred to by something other than falling through to it. */
function referencesTo(state: State, id: string): string[] {
  const { graph, playbook } = state;
  const out: string[] = [];
  const how: Record<string, (e: Edge) => string> = {
    goto: (e) => `the next: of ${e.from}`,
    condition: (e) => `the branch '${e.label}' of ${e.from}`,
    when: (e) => `a when: branch of ${e.from}`,
    default: (e) => `the default branch of ${e.from}`,
    rule: (e) => `the rule '${e.label}' of ${e.from}`,
    fallback: (e) => `the fallback of ${e.from}`,
    reject: (e) => `the on_reject of ${e.from}`,
    timeout: (e) => `the on_timeout of ${e.from}`,
    error: (e) => `the on_error of ${e.from}`,
  };
  for (const s of graph.steps)
    for (const e of graph.successors(s.id))
      if (e.to === id && e.from !== id && e.kind !== "fall-through")
        out.push(how[e.kind]?.(e) ?? `a ${e.kind} edge from ${e.from}`);
  if (graph.mode === "nodes" && playbook.entrypoint === id) out.push("the entrypoint");
  const reads = new RegExp(`(^|[^A-Za-z0-9_.-])steps\\.${id.replace(/-/g, "\\-")}\\.`);
  for (const s of graph.steps)
    if (s.id !== id && reads.test(JSON.stringify(s.step))) out.push(`${s.id} reads its outputs`);
  if (reads.test(JSON.stringify(playbook.outputs ?? {})))
    out.push("the playbook's outputs read it");
  return [...new Set(out)];
}

/** Golden cases that go through a step or name it. */
function casesNaming(tests: readonly TestCase[], id: string): string[] {
  return tests
    .filter(
      (t) =>
        (t.expect?.path ?? []).includes(id) ||
        (t.events ?? []).some((e) => {
          const v = Object.values(e)[0] as { step?: string } | undefined;
          return typeof v === "object" && v !== null && v.step === id;
        }),
    )
    .map((t) => t.name);
}

/** How the edges into `to` are written, pointed at `target` instead. */
function repoint(state: State, edges: readonly Edge[], target: string): Op[] | undefined {
  const ops: Op[] = [];
  for (const e of edges) {
    if (e.kind === "fall-through") continue;
    if (e.kind === "error") {
      const policy = at(state.value, e.path);
      if (typeof policy !== "string" || !policy.startsWith("goto:")) return undefined;
      ops.push({ op: "set", path: e.path, value: `goto:${target}` });
    } else if (
      ["goto", "condition", "when", "default", "rule", "fallback", "reject", "timeout"].includes(
        e.kind,
      )
    ) {
      if (at(state.value, e.path) !== e.to) return undefined;
      ops.push({ op: "set", path: e.path, value: target });
    } else return undefined;
  }
  return ops;
}

function edgesInto(graph: PlaybookGraph, to: string): Edge[] {
  return graph.steps.flatMap((s) => graph.successors(s.id).filter((e) => e.to === to));
}

// --- (b) steps every run skipped ---------------------------------------------------------------

function skippedSteps(
  state: State,
  runs: readonly RunEvidence[],
  minRuns: number,
  notes: string[],
): Plan[] {
  const completed = runs.filter((r) => r.status === "completed");
  if (completed.length < minRuns) return [];
  const { graph, playbook } = state;
  const reachable = graph.reachable();
  const tests = playbook.tests ?? [];
  const plans: Plan[] = [];
  for (const s of graph.steps) {
    if (s.list !== "" || !reachable.has(s.id)) continue;
    if (endsPlaybook(s.step)) continue;
    const visits = completed.flatMap((r) => r.path.filter((v) => v.step === s.id));
    if (visits.some((v) => v.status !== "skipped")) continue;
    const skipped = completed.filter((r) => r.path.some((v) => v.step === s.id)).length;
    const reason =
      skipped === completed.length
        ? `skipped in each of the ${completed.length} completed runs (its if: was never true)`
        : `never entered in any of the ${completed.length} completed runs`;
    const blockers = [...referencesTo(state, s.id)];
    if (s.step.needs?.length || graph.steps.some((o) => o.step.needs?.includes(s.id)))
      blockers.push("needs: lists name it");
    if (
      graph.mode === "steps" &&
      s.step.next !== undefined &&
      s.step.next !== graph.following(s.id)?.id
    )
      blockers.push("it has a next: of its own, which the step before it would lose");
    const cases = casesNaming(tests, s.id);
    if (cases.length)
      blockers.push(
        `golden ${cases.length === 1 ? "case" : "cases"} ${cases.map(quote).join(", ")}, which ${cases.length === 1 ? "goes" : "go"} through it`,
      );
    if (blockers.length > 0) {
      notes.push(
        `${s.id} was ${reason}; left as it is, for what removing it would affect: ${blockers.join("; ")}.`,
      );
      continue;
    }
    plans.push({
      change: { kind: "remove-step", step: s.id, reason, tests: [] },
      ops: [{ op: "remove", path: s.path }],
    });
  }
  return plans;
}

// --- (c) approvals every run gave ----------------------------------------------------------------

/** Where approvals are asked for: checkpoints, ask-first steps, and the playbook-wide gates. */
function approvalPoints(state: State): string[] {
  const { graph, playbook } = state;
  const out: string[] = [];
  for (const s of graph.steps) {
    const st = s.step;
    if (
      st.type === "checkpoint" ||
      st.authority === "ask-first" ||
      (st.authority === undefined &&
        playbook.authority?.default === "ask-first" &&
        hasSideEffects(st)) ||
      (playbook.interaction_mode?.includes("needs_review") && hasSideEffects(st)) ||
      (st.type === "ai" && st.scope === "write") ||
      (playbook.authority?.ask_first_below !== undefined && st.authority === "show-me")
    )
      out.push(s.id);
  }
  return out;
}

/**
 * The golden cases once an approval point is gone: its approvals are no longer asked for, so its
 * `approve` events go (and, for a checkpoint, its place in the path); cases that show it refusing
 * (a rejection, or a run left waiting for it) no longer apply and go.
 */
function casesWithoutApproval(
  state: State,
  id: string,
  dropFromPath: boolean,
): { ops: Op[]; told: string[] } | { why: string } {
  const tests = state.playbook.tests ?? [];
  const votes = (t: TestCase) => (t.events ?? []).filter((e) => "approve" in e || "reject" in e);
  if (!tests.some((t) => votes(t).length > 0)) return { ops: [], told: [] };
  const points = approvalPoints(state);
  if (points.length !== 1)
    return {
      why: `golden cases approve steps and the playbook asks for approval at ${points.length} places (${points.join(", ")}): which approvals were this one's cannot be told without running them`,
    };
  const ops: Op[] = [];
  const told: string[] = [];
  const removed: number[] = [];
  tests.forEach((t, ti) => {
    const events = t.events ?? [];
    const path = t.expect?.path;
    const refusal =
      events.some((e) => "reject" in e) ||
      (Array.isArray(path) &&
        !path.includes(id) &&
        events.some((e) => "wait" in e) &&
        t.expect?.status !== "completed");
    if (refusal) {
      removed.push(ti);
      told.push(
        `golden case ${quote(t.name)} removed: it shows the approval refused or never given`,
      );
      return;
    }
    const drop = events.flatMap((e, i) => ("approve" in e ? [i] : []));
    const pathHas = dropFromPath && Array.isArray(path) && path.includes(id);
    if (drop.length === 0 && !pathHas) return;
    if (drop.length === events.length && drop.length > 0)
      ops.push({ op: "set", path: ["tests", ti, "events"], value: [] });
    else for (const i of drop) ops.push({ op: "remove", path: ["tests", ti, "events", i] });
    if (pathHas)
      ops.push({
        op: "set",
        path: ["tests", ti, "expect", "path"],
        value: (path as string[]).filter((p) => p !== id),
      });
    told.push(
      `golden case ${quote(t.name)}: ${[drop.length ? `${plural(drop.length, "approve event")} removed` : "", pathHas ? `${id} taken out of its path` : ""].filter(Boolean).join(", ")}`,
    );
  });
  if (removed.length === tests.length) ops.push({ op: "remove", path: ["tests"] });
  else for (const ti of removed) ops.push({ op: "remove", path: ["tests", ti] });
  return { ops, told };
}

function givenApprovals(
  state: State,
  runs: readonly RunEvidence[],
  minRuns: number,
  notes: string[],
): Plan[] {
  const { graph } = state;
  const plans: Plan[] = [];
  for (const id of approvalPoints(state)) {
    const s = graph.byId.get(id);
    if (!s) continue;
    const visits = runs.flatMap((r) => r.path.filter((v) => v.step === id));
    const refused = visits.some(
      (v) =>
        (v.approvals ?? []).some((a) => a.decision === "reject") ||
        (v.status === "failed" && answeredWithApproval(s.step)),
    );
    if (refused) continue;
    const given = runs.filter((r) =>
      r.path.some(
        (v) =>
          v.step === id &&
          v.status === "completed" &&
          (v.approvals ?? []).some((a) => a.decision === "approve"),
      ),
    );
    if (given.length < minRuns) continue;
    const people = new Set(
      given.flatMap((r) =>
        r.path.flatMap((v) =>
          v.step === id
            ? (v.approvals ?? []).map((a) => stripControls(a.by, false).toLowerCase())
            : [],
        ),
      ),
    );
    const reason = `approved in each of the ${plural(given.length, "run")} that reached it (by ${plural(people.size, "person", "people")} in all) and never refused`;
    const blockers: string[] = [];
    if (s.list !== "") blockers.push("it is inside a parallel branch");
    const ops: Op[] = [];
    let what: string;
    if (s.step.type === "checkpoint") {
      what = "the checkpoint is dropped";
      ops.push(...dropCheckpoint(state, s, blockers));
    } else {
      what =
        "its authority is lowered from ask-first to show-me (the run reports it instead of asking first)";
      ops.push(...lowerAuthority(state, s, blockers));
    }
    const cases =
      blockers.length === 0
        ? casesWithoutApproval(state, id, answeredWithApproval(s.step))
        : undefined;
    if (cases && "why" in cases) blockers.push(cases.why);
    if (blockers.length > 0 || !cases || "why" in cases) {
      notes.push(
        `${id} was ${reason}, so it could be lowered, but ${blockers.join("; ")} — left as it is.`,
      );
      continue;
    }
    plans.push({
      change: { kind: "lower-approval", step: id, reason: `${reason}: ${what}`, tests: cases.told },
      ops: [...ops, ...cases.ops],
    });
  }
  return plans;
}

/**
 * The ops that drop an always-approved checkpoint, its way in re-pointed to what follows it;
 * what keeps it from being dropped is added to `blockers`.
 */
function dropCheckpoint(state: State, s: GraphStep, blockers: string[]): Op[] {
  const { graph, playbook } = state;
  const id = s.id;
  const ops: Op[] = [];
  blockers.push(
    ...referencesTo(state, id).filter(
      (r) => r.endsWith("reads its outputs") || r.startsWith("the playbook's"),
    ),
  );
  if (graph.steps.some((o) => o.step.needs?.includes(id))) blockers.push("needs: lists name it");
  const next = s.step.next;
  let successor: string | undefined;
  if (Array.isArray(next)) blockers.push("it branches (next: is a list)");
  else if (graph.mode === "nodes") {
    successor = next;
    if (successor === undefined) blockers.push("it ends the playbook");
  } else {
    const following = graph.following(id)?.id;
    if (next !== undefined && next !== following)
      blockers.push("it has a next: of its own, which the step before it would lose");
    successor = next ?? following;
    const into = edgesInto(graph, id).filter((e) => e.kind !== "fall-through");
    if (into.length > 0 && successor === undefined) blockers.push("it is the last step");
  }
  if (blockers.length === 0 && successor !== undefined) {
    const into = edgesInto(graph, id).filter((e) => e.from !== id);
    const moved = repoint(state, into, successor);
    if (!moved) blockers.push("a step goes to it in a way that cannot be re-pointed");
    else ops.push(...moved);
    if (graph.mode === "nodes" && playbook.entrypoint === id)
      ops.push({ op: "set", path: ["entrypoint"], value: successor });
  }
  ops.push({ op: "remove", path: s.path });
  return ops;
}

/** The ops that lower an always-given approval from ask-first to show-me. */
function lowerAuthority(state: State, s: GraphStep, blockers: string[]): Op[] {
  const { playbook } = state;
  const ops: Op[] = [];
  if (s.step.authority === "ask-first")
    ops.push({ op: "set", path: [...s.path, "authority"], value: "show-me" });
  else if (s.step.authority === undefined && playbook.authority?.default === "ask-first")
    ops.push({
      op: "insertEntry",
      path: s.path,
      key: "authority",
      value: "show-me",
      after: "type",
    });
  else
    blockers.push(
      "its approval comes from a playbook-wide setting (interaction_mode or ask_first_below)",
    );
  return ops;
}

// --- (a) work done by hand where the playbook has no step ----------------------------------------

type Anchor = { kind: "before"; to: string; from?: string } | { kind: "after"; from: string };

function anchorOf(
  graph: PlaybookGraph,
  run: RunEvidence,
  first: number | undefined,
): Anchor | { why: string } {
  const visits = run.path.filter(
    (v) =>
      typeof v.step === "string" &&
      depth0(v.step) &&
      v.status !== "skipped" &&
      graph.byId.has(v.step),
  );
  if (visits.length === 0)
    return { why: `run ${oneLine(run.runId, 40)} entered no step of the playbook` };
  const before = (i: number): Anchor => {
    const to = (visits[i] as { step: string }).step;
    const from = i > 0 ? (visits[i - 1] as { step: string }).step : undefined;
    return from === undefined ? { kind: "before", to } : { kind: "before", to, from };
  };
  if (first !== undefined && visits.every((v) => instant(v.at) !== undefined)) {
    const i = visits.findIndex((v) => (instant(v.at) as number) > first);
    if (i >= 0) return before(i);
  }
  const lastIndex = visits.length - 1;
  const last = visits[lastIndex] as { step: string };
  const step = graph.byId.get(last.step)?.step as Step;
  if (run.status === "waiting" || run.status === "running" || run.status === "failed")
    return before(lastIndex);
  if (endsPlaybook(step)) return before(lastIndex);
  if (graph.isTerminal(last.step)) return { kind: "after", from: last.step };
  return {
    why: `run ${oneLine(run.runId, 40)} stopped at ${last.step}, which does not end the playbook`,
  };
}

interface Gathered {
  anchor: Anchor;
  runs: Set<string>;
  findings: Map<string, FindingValue>;
  notes: string[];
}

function adhocWork(
  state: State,
  runs: readonly RunEvidence[],
  adhoc: readonly RunAdhoc[],
  options: Required<Pick<ImprovementOptions, "maxFindings" | "maxProseChars">>,
  notes: string[],
): Plan[] {
  const { graph } = state;
  const expected = new Set(graph.steps.flatMap((s) => expectedFindingsOf(s.step)));
  const groups = gatherAdhoc(state, runs, adhoc, notes);
  const plans: Plan[] = [];
  const taken = new Set(graph.steps.map((s) => s.id.toLowerCase()));
  for (const g of groups.values()) {
    const plan = investigationFor(state, g, expected, taken, options, notes);
    if (plan) plans.push(plan);
  }
  return plans;
}

/** Work by hand on the runs, grouped by where in the playbook it was done. */
function gatherAdhoc(
  state: State,
  runs: readonly RunEvidence[],
  adhoc: readonly RunAdhoc[],
  notes: string[],
): Map<string, Gathered> {
  const { graph, playbook } = state;
  const groups = new Map<string, Gathered>();
  for (const work of adhoc) {
    const run = runs.find((r) => r.runId === work?.runId);
    if (!run) {
      notes.push(
        `Work by hand after run ${oneLine(String(work?.runId), 40)} is not counted: that run is not among the runs of ${playbook.id} given.`,
      );
      continue;
    }
    const entries = Array.isArray(work.entries) ? work.entries.slice(0, 500) : [];
    const found = new Map<string, FindingValue>();
    const written: string[] = [];
    for (const e of entries) {
      if (e?.kind === "record") {
        const key = asId(String(e.key));
        if (key !== undefined && !found.has(key)) found.set(key, asFindingValue(e.value, 200));
      } else if (e?.kind === "note") {
        const text = prose(String(e.text ?? ""), 500);
        if (text) written.push(text);
      }
    }
    if (found.size === 0 && written.length === 0) continue;
    const times = entries.map((e) => instant(e?.at)).filter((t): t is number => t !== undefined);
    const anchor = anchorOf(graph, run, times.length ? Math.min(...times) : undefined);
    if ("why" in anchor) {
      notes.push(
        `Work by hand on run ${oneLine(run.runId, 40)} could not be placed: ${anchor.why}.`,
      );
      continue;
    }
    const key =
      anchor.kind === "after" ? `after:${anchor.from}` : `${anchor.from ?? "^"}>${anchor.to}`;
    const g = groups.get(key) ?? {
      anchor,
      runs: new Set<string>(),
      findings: new Map<string, FindingValue>(),
      notes: [] as string[],
    };
    g.runs.add(run.runId);
    for (const [k, v] of found) if (!g.findings.has(k)) g.findings.set(k, v);
    for (const n of written) if (!g.notes.includes(n) && g.notes.length < 3) g.notes.push(n);
    groups.set(key, g);
  }
  return groups;
}

/** The investigation proposed for one place's work by hand, or undefined (and a note why not). */
function investigationFor(
  state: State,
  g: Gathered,
  expected: Set<string>,
  taken: Set<string>,
  options: Required<Pick<ImprovementOptions, "maxFindings" | "maxProseChars">>,
  notes: string[],
): Plan | undefined {
  const where =
    g.anchor.kind === "after"
      ? `after ${g.anchor.from}`
      : g.anchor.from === undefined
        ? `before ${g.anchor.to}, where the playbook starts`
        : `between ${g.anchor.from} and ${g.anchor.to}`;
  const fresh = [...g.findings.keys()]
    .filter((k) => !expected.has(k))
    .slice(0, options.maxFindings);
  const inRuns = plural(g.runs.size, "run");
  if (fresh.length === 0) {
    notes.push(
      `People worked by hand ${where} in ${inRuns}${g.notes.length ? ` (${g.notes.map((n) => quote(n)).join(", ")})` : ""}, recording nothing the playbook does not already ask for: no step is proposed for it.`,
    );
    return undefined;
  }
  const stem = (asId(`check-${fresh[0]}`, 56) ?? "check").replace(/[_-]+$/, "");
  let id = stem;
  for (let n = 2; taken.has(id.toLowerCase()); n++) id = `${stem}-${n}`;
  const description =
    g.notes.length > 0
      ? prose(g.notes.join("\n\n"), options.maxProseChars)
      : `Find out ${fresh.join(", ")}: people did this by hand ${where} in ${inRuns}.`;
  const planned = placeInvestigation(state, g.anchor, id, {
    type: "investigate",
    description,
    expected_findings: fresh,
  });
  if ("why" in planned) {
    notes.push(
      `People recorded ${fresh.join(", ")} by hand ${where} in ${inRuns}, but a step for it cannot be added: ${planned.why}.`,
    );
    return undefined;
  }
  const record: TestEvent = {
    record: {
      findings: Object.fromEntries(fresh.map((k) => [k, g.findings.get(k) as FindingValue])),
    },
  };
  const cases = casesWithInvestigation(state, g.anchor, id, record, planned.chosenBy);
  if ("why" in cases) {
    notes.push(
      `People recorded ${fresh.join(", ")} by hand ${where} in ${inRuns}, but the step is not proposed: ${cases.why}.`,
    );
    return undefined;
  }
  taken.add(id.toLowerCase());
  return {
    change: {
      kind: "add-investigation",
      step: id,
      reason: `people recorded ${fresh.join(", ")} by hand ${where} in ${inRuns}, work the playbook has no step for`,
      tests: cases.told,
    },
    ops: [...planned.ops, ...cases.ops],
  };
}

/** The ops that put a new investigation at an anchor, and the branch label that leads to it. */
function placeInvestigation(
  state: State,
  anchor: Anchor,
  id: string,
  body: Record<string, unknown>,
): { ops: Op[]; chosenBy?: string } | { why: string } {
  const { graph } = state;
  const own = graph.lists.get("");
  if (own?.dag)
    return { why: "the steps run by needs:, where a new step's place is not a position" };
  const nodes = graph.mode === "nodes";
  const stepValue = (next?: string): Record<string, unknown> =>
    nodes ? { ...body, ...(next ? { next } : {}) } : { id, ...body, ...(next ? { next } : {}) };
  const insertAfter = (after: string, value: Record<string, unknown>): Op | undefined => {
    const s = graph.byId.get(after);
    if (!s || s.list !== "") return undefined;
    return nodes
      ? { op: "insertEntry", path: ["nodes"], key: id, value, after }
      : { op: "insertItem", path: ["steps"], after: s.position, value, flowFrom: 2 };
  };
  if (anchor.kind === "after") {
    const last = graph.byId.get(anchor.from);
    if (!last || last.list !== "") return { why: `${anchor.from} is inside a parallel branch` };
    if (last.step.next !== undefined)
      return { why: `${anchor.from} has a next: the run did not follow` };
    if (!nodes) {
      if (graph.following(anchor.from)) return { why: `${anchor.from} is followed by other steps` };
      return { ops: [insertAfter(anchor.from, stepValue()) as Op] };
    }
    return {
      ops: [
        { op: "insertEntry", path: last.path, key: "next", value: id },
        insertAfter(anchor.from, stepValue()) as Op,
      ],
    };
  }
  const target = graph.byId.get(anchor.to);
  if (!target || target.list !== "") return { why: `${anchor.to} is inside a parallel branch` };
  if (anchor.from === undefined) return placeAtStart(state, anchor.to, id, stepValue);
  const from = graph.byId.get(anchor.from);
  if (!from || from.list !== "") return { why: `${anchor.from} is inside a parallel branch` };
  const edges = graph.successors(anchor.from).filter((e) => e.to === anchor.to);
  if (edges.length === 0)
    return {
      why: `the playbook has no way from ${anchor.from} to ${anchor.to} (a run of another version?)`,
    };
  const falls = edges.some((e) => e.kind === "fall-through");
  if (!falls && graph.successors(anchor.from).some((e) => e.kind === "fall-through"))
    return {
      why: `${anchor.from} also falls through to another step, which a step after it would take over`,
    };
  const moved = repoint(state, edges, id);
  if (!moved) return { why: `the way from ${anchor.from} to ${anchor.to} cannot be re-pointed` };
  const place = insertAfter(anchor.from, stepValue(falls && !nodes ? undefined : anchor.to));
  if (!place) return { why: `${anchor.from} cannot be followed by a new step` };
  const chosen = edges.filter((e) => e.kind === "condition").map((e) => e.label as string);
  return chosen.length === 1 && edges.length === 1
    ? { ops: [...moved, place], chosenBy: chosen[0] as string }
    : { ops: [...moved, place] };
}

/** The ops that put a new investigation first, before `to` where the playbook starts. */
function placeAtStart(
  state: State,
  to: string,
  id: string,
  stepValue: (next?: string) => Record<string, unknown>,
): { ops: Op[] } | { why: string } {
  const { graph, playbook } = state;
  const nodes = graph.mode === "nodes";
  if (nodes) {
    const keys = Object.keys(playbook.nodes ?? {});
    const i = keys.indexOf(to);
    return {
      ops: [
        { op: "set", path: ["entrypoint"], value: id },
        {
          op: "insertEntry",
          path: ["nodes"],
          key: id,
          value: stepValue(to),
          after: keys[i - 1] ?? to,
        },
      ],
    };
  }
  if (graph.entry !== to) return { why: `the run started at ${to}, not where the playbook starts` };
  return {
    ops: [{ op: "insertItem", path: ["steps"], after: -1, value: stepValue(), flowFrom: 2 }],
  };
}

/**
 * The golden cases that pass where the new investigation goes: it joins their path, and a
 * `record` of its findings joins their events where the run waits for it — right after the
 * `/choose` that leads there, first when nothing before it waits, last when nothing after it
 * does. A case where that place cannot be told without running it keeps the step from being
 * proposed.
 */
function casesWithInvestigation(
  state: State,
  anchor: Anchor,
  id: string,
  record: TestEvent,
  chosenBy: string | undefined,
): { ops: Op[]; told: string[] } | { why: string } {
  const { playbook, graph } = state;
  const ops: Op[] = [];
  const told: string[] = [];
  for (const [ti, t] of (playbook.tests ?? []).entries()) {
    const path = t.expect?.path;
    const events = t.events ?? [];
    // A case whose run never starts (inputs refused) passes nowhere.
    if (events.length === 0 && t.expect?.status === "failed" && !path?.length) continue;
    if (!Array.isArray(path))
      return {
        why: `golden case ${quote(t.name)} has no expected path to tell whether it passes there`,
      };
    const spots = spotsOf(path, anchor);
    if (spots.length === 0) {
      // Every run starts where the playbook starts: a case that does not is one this step changes.
      if (anchor.kind === "before" && anchor.from === undefined)
        return {
          why: `golden case ${quote(t.name)} starts a run that would now wait at ${id} first`,
        };
      continue;
    }
    if (spots.length > 1)
      return { why: `golden case ${quote(t.name)} passes there more than once` };
    const spot = spots[0] as number;
    let place: number | undefined;
    if (chosenBy !== undefined) {
      const chooses = events.flatMap((e, i) =>
        "choose" in e && e.choose.branch === chosenBy ? [i] : [],
      );
      if (chooses.length === 1) place = (chooses[0] as number) + 1;
    }
    if (place === undefined && path.slice(0, spot).every((p) => !canWait(playbook, graph, p))) {
      place = 0;
      while (place < events.length && "fail_effect" in (events[place] as TestEvent)) place++;
    }
    if (place === undefined && path.slice(spot).every((p) => !canWait(playbook, graph, p)))
      place = events.length;
    if (place === undefined)
      return {
        why: `golden case ${quote(t.name)} passes there, and where its /record would go cannot be told without running it`,
      };
    ops.push({
      op: "set",
      path: ["tests", ti, "expect", "path"],
      value: [...path.slice(0, spot), id, ...path.slice(spot)],
    });
    if (t.events === undefined)
      ops.push({
        op: "insertEntry",
        path: ["tests", ti],
        key: "events",
        value: [record],
        after: "name",
      });
    else
      ops.push({
        op: "insertItem",
        path: ["tests", ti, "events"],
        after: place - 1,
        value: record,
        flowFrom: 1,
      });
    told.push(
      `golden case ${quote(t.name)}: ${id} added to its path, with a /record of its findings`,
    );
  }
  return { ops, told };
}

/** Where in a golden case's expected path the new investigation would go (each place it passes). */
function spotsOf(path: readonly string[], anchor: Anchor): number[] {
  const top = path.flatMap((p, i) => (depth0(p) ? [i] : []));
  const spots: number[] = [];
  if (anchor.kind === "after") {
    if (path.length > 0 && path[path.length - 1] === anchor.from) spots.push(path.length);
  } else if (anchor.from === undefined) {
    if (top.length > 0 && path[top[0] as number] === anchor.to) spots.push(0);
  } else {
    for (let k = 0; k + 1 < top.length; k++)
      if (path[top[k] as number] === anchor.from && path[top[k + 1] as number] === anchor.to)
        spots.push((top[k] as number) + 1);
  }
  return spots;
}

// --- the proposal ---------------------------------------------------------------------------------

/**
 * Propose changes to a playbook from its runs (possibly on several issues) and the work people
 * did by hand on those runs' issues after them. `source` is the file as written and `playbook`
 * the parsed playbook (they must agree). Undefined when there is nothing to propose or tell.
 */
export function proposeImprovement(
  source: string,
  playbook: PlaybookDocument,
  runs: readonly RunEvidence[],
  adhoc: readonly RunAdhoc[],
  options: ImprovementOptions = {},
): Improvement | undefined {
  const file = options.file ?? `${asId(String(playbook?.id)) ?? "playbook"}.yaml`;
  const check: Check = (text) =>
    checkPlaybookText(file, text, options.known ? { known: options.known } : {});
  const start = givenState(file, source, playbook, check);
  if ("status" in start) return start;
  const minRuns = Math.max(1, options.minRuns ?? 3);
  const own = (Array.isArray(runs) ? runs : []).filter(
    (r) => r && r.playbook === playbook.id && Array.isArray(r.path),
  );
  const notes: string[] = [];
  const others = (Array.isArray(runs) ? runs : []).length - own.length;
  if (others > 0)
    notes.push(
      `${plural(others, "run")} of other playbooks ${others === 1 ? "was" : "were"} not counted.`,
    );

  let state = start;
  let formatting: "kept" | "rewritten" = "kept";
  const changes: ProposedChange[] = [];
  const stages: ((s: State) => Plan[])[] = [
    (s) => skippedSteps(s, own, minRuns, notes),
    (s) => givenApprovals(s, own, minRuns, notes),
    (s) =>
      adhocWork(
        s,
        own,
        Array.isArray(adhoc) ? adhoc : [],
        {
          maxFindings: options.maxFindings ?? 20,
          maxProseChars: options.maxProseChars ?? 2000,
        },
        notes,
      ),
  ];
  for (const stage of stages) {
    // Each stage plans against the file as the earlier stages left it; each plan is applied and
    // validated on its own, so one that fails leaves the others standing.
    for (const plan of stage(state)) {
      if (changes.some((c) => c.step === plan.change.step)) continue;
      const applied = applyPlan(state, plan, file, check, notes);
      if (!applied) continue;
      if (applied.rewritten) formatting = "rewritten";
      state = applied.state;
      changes.push(plan.change);
    }
  }
  if (changes.length === 0)
    return notes.length > 0 ? { status: "advice", summary: notes } : undefined;
  const summary = summaryOf(changes, notes, formatting);
  return {
    status: "proposed",
    yaml: state.text,
    playbook: state.playbook,
    changes,
    summary,
    formatting,
  };
}

/** How a text is checked: the project's validator, with the playbooks it knows. */
type Check = (text: string) => ReturnType<typeof checkPlaybookText>;

/** The file as given, read: or why nothing can be proposed to it. */
function givenState(
  file: string,
  source: string,
  playbook: PlaybookDocument,
  check: Check,
): State | Extract<Improvement, { status: "invalid" }> {
  const first = check(source);
  if (!first.ok)
    return {
      status: "invalid",
      problems: first.problems,
      summary: ["The playbook does not validate as it is: nothing is proposed."],
    };
  if (first.dialect !== undefined)
    return {
      status: "invalid",
      problems: [
        `${file} is written in the ${first.dialect} dialect: changes are proposed to v1 playbooks only`,
      ],
      summary: [],
    };
  const start = stateOf(file, source);
  if (!start || !sameData(start.value, playbook))
    return {
      status: "invalid",
      problems: [`${file}: the playbook given is not the one its text holds`],
      summary: [],
    };
  return start;
}

/**
 * One plan applied to the file as the earlier ones left it: edited in place, or written out
 * again when the edits do not read back as meant; undefined (and a note) when it does not validate.
 */
function applyPlan(
  state: State,
  plan: Plan,
  file: string,
  check: Check,
  notes: string[],
): { state: State; rewritten: boolean } | undefined {
  const intended = applyOps(state.value, plan.ops);
  let text = editText(state.doc, plan.ops);
  let rewritten = false;
  const reread = text === undefined ? undefined : stateOf(file, text);
  if (!reread || !sameData(reread.value, intended)) {
    text = serialisePlaybook(intended);
    rewritten = true;
  }
  const checked = check(text as string);
  const next = checked.ok ? stateOf(file, text as string) : undefined;
  if (!checked.ok || !next) {
    notes.push(
      `Not proposed: ${plan.change.kind} ${plan.change.step} (${plan.change.reason}) — the playbook would not validate: ${(checked.ok ? [] : checked.problems).slice(0, 2).join("; ")}`,
    );
    return undefined;
  }
  return { state: next, rewritten };
}

/** The proposal's summary: each change, what was seen but not changed, and lost formatting. */
function summaryOf(
  changes: readonly ProposedChange[],
  notes: readonly string[],
  formatting: "kept" | "rewritten",
): string[] {
  const summary = [
    ...changes.map((c) => {
      const verb =
        c.kind === "add-investigation" ? "Add" : c.kind === "remove-step" ? "Remove" : "Lower";
      return `${verb} ${c.step}: ${c.reason}.${c.tests.length ? ` ${c.tests.join("; ")}.` : ""}`;
    }),
    ...notes,
  ];
  if (formatting === "rewritten")
    summary.push(
      "The file could not be edited in place, so it was written out again: its comments and layout are lost.",
    );
  return summary;
}
