/**
 * `/systematise`: a new playbook drafted from what an issue shows — the findings people recorded,
 * their notes, the choices and approvals they made (by hand, or in runs on the issue) and the
 * pull requests that closed it — in the order it happened, with a golden case that replays that
 * way. The draft is built as data, serialised by js-yaml and validated by the project's own
 * validator before anything is proposed. Pure: the caller reads the issue and opens the pull
 * request.
 */
import { ID_PATTERN } from "../format/schema.js";
import type {
  CheckpointStep,
  EndStep,
  InvestigateStep,
  Permission,
  PlaybookDocument,
  Step,
  TestCase,
  TestEvent,
} from "../format/types.js";
import type { KnownPlaybook } from "../rules/validate.js";
import { checkPlaybookValue } from "./check.js";
import {
  instant,
  type AdhocEntry,
  type FindingValue,
  type IssueEvidence,
  type LinkedPullRequest,
  type StepVisit,
} from "./evidence.js";
import {
  asFindingValue,
  asId,
  asLogin,
  asPermission,
  asRefName,
  oneLine,
  permissionRank,
  prose,
  stripControls,
} from "./sanitise.js";
import { isTemplated } from "../format/template.js";
import { applySeams, type InvestigationBlock } from "./seams.js";

/** Bounds on what a draft takes from an issue; what goes beyond them is left out and said so. */
export interface DraftLimits {
  /** Steps in the draft (a pull request takes three). */
  maxSteps: number;
  /** Findings one investigation expects. */
  maxFindingsPerStep: number;
  /** Characters kept of one note. */
  maxNoteChars: number;
  /** Characters of a prose field made of notes (a description, a message, an advice). */
  maxProseChars: number;
  /** Characters of a one-line field (a name, a title, a branch's condition). */
  maxLineChars: number;
  /** Characters of a recorded value replayed by the golden case. */
  maxValueChars: number;
  /** Files of a pull request named in its placeholder note. */
  maxFiles: number;
  /** Entries read from the evidence at most (records, notes, choices, approvals, run steps). */
  maxEntries: number;
  /** Labels of the issue that may start the draft. */
  maxLabels: number;
}

export const DEFAULT_DRAFT_LIMITS: Readonly<DraftLimits> = {
  maxSteps: 40,
  maxFindingsPerStep: 20,
  maxNoteChars: 1000,
  maxProseChars: 2000,
  maxLineChars: 120,
  maxValueChars: 200,
  maxFiles: 20,
  maxEntries: 2000,
  maxLabels: 10,
};

/**
 * Labels that say what kind of issue it is, not what it is about: they never start a drafted
 * playbook (every bug would start it). Compared without case; labels of the bot and of alerts
 * (`playbook:…`, `playbook-bot:…`, `alert`, `source:…`, `severity:…`) are left out too.
 */
export const GENERIC_LABELS: readonly string[] = [
  "bug",
  "question",
  "enhancement",
  "feature",
  "feature request",
  "documentation",
  "docs",
  "duplicate",
  "invalid",
  "wontfix",
  "won't fix",
  "good first issue",
  "help wanted",
  "needs triage",
  "needs-triage",
  "triage",
  "stale",
  "alert",
];
const GENERIC_PREFIXES = [
  "playbook:",
  "playbook-bot:",
  "source:",
  "severity:",
  "priority:",
  "status:",
];

/**
 * The labels of an issue that say what it is about, as written (they must match to start a run):
 * generic labels, the bot's and alerts' labels, and labels that are not plain text are skipped.
 */
export function triggerLabels(
  raw: readonly unknown[] | undefined,
  genericLabels: readonly string[] = GENERIC_LABELS,
  max = DEFAULT_DRAFT_LIMITS.maxLabels,
): { labels: string[]; skipped: string[] } {
  const generic = new Set(genericLabels.map((l) => l.toLowerCase()));
  const labels: string[] = [];
  const skipped: string[] = [];
  for (const value of Array.isArray(raw) ? raw : []) {
    const label = String(value);
    const lower = label.toLowerCase().trim();
    const clean =
      label.length > 0 &&
      label.length <= 50 &&
      stripControls(label, false) === label &&
      label.trim() === label &&
      !isTemplated(label);
    if (
      !clean ||
      generic.has(lower) ||
      GENERIC_PREFIXES.some((p) => lower.startsWith(p)) ||
      /^p[0-4]$/.test(lower)
    ) {
      skipped.push(oneLine(label, 50));
      continue;
    }
    if (labels.some((l) => l.toLowerCase() === lower) || labels.length >= max) continue;
    labels.push(label);
  }
  return { labels, skipped };
}

export interface DraftOptions {
  /** Playbooks the validation knows besides the draft (handoff targets, locked system ids). */
  known?: KnownPlaybook[];
  limits?: Partial<DraftLimits>;
  /** Replaces GENERIC_LABELS. */
  genericLabels?: readonly string[];
  /**
   * Where investigations begin and end, as an AI adapter proposed it (see `applySeams`): used
   * when it keeps every finding in order and no choice, approval or pull request inside one;
   * otherwise the draft keeps its own seams and its summary says why.
   */
  seams?: unknown;
}

export interface DraftProblem {
  code: "id-invalid" | "no-evidence" | "no-work" | "invalid";
  message: string;
}

export type DraftResult =
  | { ok: true; playbook: PlaybookDocument; yaml: string; summary: string[] }
  | { ok: false; problems: DraftProblem[] };

/** The id of every drafted playbook's normal end, and of the end of a way not drafted. */
export const DONE_STEP = "done";
export const OTHER_PATH_STEP = "other-path";

interface Vote {
  by: string;
  decision: "approve" | "reject";
  permission?: Permission;
}

type Item =
  | { t: "record"; key: string; value: FindingValue; from?: string }
  | { t: "note"; text: string }
  | { t: "choice"; label: string; condition?: string; from?: string }
  | { t: "approval"; votes: Vote[]; from?: string; adhoc: boolean }
  | { t: "boundary" }
  | { t: "pr"; pr: LinkedPullRequest };

interface Timed {
  item: Item;
  at?: number;
}

type Block =
  | InvestigationBlock
  | { kind: "approval"; notes: string[]; votes: Vote[]; from?: string; adhoc: boolean }
  | { kind: "pr"; notes: string[]; pr: LinkedPullRequest };

/** What a block becomes: its steps, the events that take a run through them, and its path. */
interface Segment {
  steps: Step[];
  events: TestEvent[];
  path: string[];
  /** The `/choose` event of an investigation with a choice, and its other branch's label. */
  choose?: { event: TestEvent; other: string };
}

/** Merge ordered streams by time; an entry without a time keeps its stream's order and goes first. */
function mergeByTime(streams: Timed[][]): Item[] {
  const heads = streams.map(() => 0);
  const out: Item[] = [];
  for (;;) {
    let best = -1;
    for (let s = 0; s < streams.length; s++) {
      const h = streams[s]?.[heads[s] as number];
      if (!h) continue;
      if (best === -1) {
        best = s;
        continue;
      }
      const b = streams[best]?.[heads[best] as number] as Timed;
      if (h.at !== undefined && b.at !== undefined && h.at < b.at) best = s;
    }
    if (best === -1) return out;
    out.push((streams[best]?.[heads[best] as number] as Timed).item);
    heads[best] = (heads[best] as number) + 1;
  }
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** Ids unique within the draft, each a valid id of the format. */
class Ids {
  private readonly used = new Set<string>();

  reserve(id: string): void {
    this.used.add(id.toLowerCase());
  }

  take(base: string): string {
    const stem = (asId(base, 56) ?? "step").replace(/[_-]+$/, "") || "step";
    let id = stem;
    for (let n = 2; this.used.has(id.toLowerCase()); n++) id = `${stem}-${n}`;
    this.used.add(id.toLowerCase());
    return id;
  }
}

/**
 * Draft a new playbook from an issue's evidence. `id` is the new playbook's id. The result is a
 * playbook that validates (all layers) with its YAML text and a summary for reviewers, or the
 * problems that keep one from being proposed.
 */
export function draftPlaybook(
  evidence: IssueEvidence,
  id: string,
  options: DraftOptions = {},
): DraftResult {
  const limits: DraftLimits = { ...DEFAULT_DRAFT_LIMITS, ...options.limits };
  const invalid = refusedInput(evidence, id);
  if (invalid) return invalid;
  const { issueRef, title } = issueOf(evidence, limits);

  // --- The timeline: runs' steps, work by hand and merged pull requests, in the order of time.
  const reader = new EvidenceReader(limits);
  const timeline = mergeByTime([
    reader.runStream(evidence),
    reader.adhocStream(evidence),
    reader.prStream(evidence),
  ]);

  // --- Blocks: consecutive records form one investigation, notes describe what follows them.
  const grouped = new BlockGrouper();
  for (const item of timeline) grouped.add(item);
  const { endNotes } = grouped.end();
  const { blocks, seamsNotes } = regrouped(grouped.blocks, options.seams);
  const { kept, approvalsOf, refused } = countApprovals(blocks);
  if (kept.length === 0) return noWork(issueRef, endNotes, reader, refused);

  // --- Steps, ids and the golden case.
  const { planned, blocksCut } = planSteps(kept, limits);
  const prs = kept.filter((b) => b.kind === "pr").length;
  const build = new SegmentBuilder(id, issueRef, limits, planned, approvalsOf, prs);
  const segments = planned.map((p, i) => build.segment(p, i));
  const steps = withEnds(segments, issueRef, endNotes, build.usesOtherPath, build.described);
  const tests = goldenCases(segments, issueRef);

  // --- Metadata: name and description from the title; labels that say what the issue is about.
  const { labels, skipped: skippedLabels } = triggerLabels(
    evidence.issue.labels,
    options.genericLabels ?? GENERIC_LABELS,
    limits.maxLabels,
  );
  const playbook: Record<string, unknown> = {
    apiVersion: "playbook-bot/v1",
    id,
    name: title || id,
    description: oneLine(
      `Repeats the work done on ${issueRef}${title ? `: ${title}` : ""}.`,
      limits.maxLineChars * 3,
    ),
    ...(labels.length > 0 ? { on: { labels } } : {}),
    steps,
    tests,
  };
  const checked = checkPlaybookValue(
    `${id}.yaml`,
    playbook,
    options.known ? { known: options.known } : {},
  );
  if (!checked.ok)
    return {
      ok: false,
      problems: checked.problems.map((message) => ({ code: "invalid" as const, message })),
    };

  // --- The summary, for the reviewers of the pull request that proposes the draft.
  const left: LeftOut = {
    labels,
    skippedLabels,
    refused,
    findingsCut: build.findingsCut,
    blocksCut,
    usesOtherPath: build.usesOtherPath,
    warnings: checked.warnings,
  };
  return {
    ok: true,
    playbook: checked.playbook,
    yaml: checked.yaml,
    summary: [
      ...summaryHead(id, issueRef, steps, tests, segments),
      ...build.summary,
      ...seamsNotes,
      ...leftOutNotes(reader, left, limits),
    ],
  };
}

/** Why nothing can be drafted from what was given: an id that is not one, or no issue. */
function refusedInput(evidence: IssueEvidence, id: string): DraftResult | undefined {
  if (typeof id !== "string" || !new RegExp(ID_PATTERN).test(id))
    return {
      ok: false,
      problems: [
        {
          code: "id-invalid",
          message: `'${oneLine(String(id), 80)}' is not a playbook id: ids match ${ID_PATTERN}`,
        },
      ],
    };
  if (!evidence || typeof evidence !== "object" || !evidence.issue)
    return {
      ok: false,
      problems: [{ code: "no-evidence", message: "no issue was given to draft from" }],
    };
  return undefined;
}

/** The blocks as the AI adapter's seams regroup them, when they can; a note says which. */
function regrouped(blocks: Block[], seams: unknown): { blocks: Block[]; seamsNotes: string[] } {
  if (seams === undefined) return { blocks, seamsNotes: [] };
  const result = applySeams(blocks, seams);
  return {
    blocks: result.ok ? result.blocks : blocks,
    seamsNotes: [
      result.ok
        ? result.note
        : `The AI adapter's grouping of findings was not used (${result.reason}); the draft keeps the order of the issue.`,
    ],
  };
}

/** How the draft names the issue (`issue owner/repo#12`), and its title on one line. */
function issueOf(
  evidence: IssueEvidence,
  limits: DraftLimits,
): { issueRef: string; title: string } {
  const issueNumber =
    Number.isSafeInteger(evidence.issue.number) && evidence.issue.number > 0
      ? evidence.issue.number
      : undefined;
  const repo =
    evidence.repo &&
    /^[A-Za-z0-9_.-]{1,100}$/.test(String(evidence.repo.owner)) &&
    /^[A-Za-z0-9_.-]{1,100}$/.test(String(evidence.repo.name))
      ? `${evidence.repo.owner}/${evidence.repo.name}`
      : undefined;
  const issueRef = issueNumber === undefined ? "the issue" : `issue ${repo ?? ""}#${issueNumber}`;
  const title = oneLine(String(evidence.issue.title ?? ""), limits.maxLineChars);
  return { issueRef, title };
}

/**
 * Reads the issue's evidence into timed streams of items, within `maxEntries` in all; keeps what
 * it could not use (keys, notes, kinds of steps, unmerged pull requests) for the summary.
 */
class EvidenceReader {
  private budget: number;
  private readonly keyOf = new Map<string, string>();
  overBudget = false;
  readonly badKeys: string[] = [];
  readonly renamedKeys: string[] = [];
  readonly ignoredKinds = new Map<string, number>();
  notesCut = 0;
  readonly unmerged: string[] = [];

  constructor(private readonly limits: DraftLimits) {
    this.budget = limits.maxEntries;
  }

  private spend(): boolean {
    if (this.budget <= 0) {
      this.overBudget = true;
      return false;
    }
    this.budget--;
    return true;
  }

  /** A recorded key as a finding key: the first spelling of a key seen in any case wins. */
  private findingKey(raw: unknown): string | undefined {
    const text = String(raw);
    const key = asId(text);
    if (key === undefined) {
      if (this.badKeys.length < 5) this.badKeys.push(oneLine(text, 40));
      else this.badKeys.push("");
      return undefined;
    }
    const first = this.keyOf.get(key.toLowerCase());
    if (first === undefined) this.keyOf.set(key.toLowerCase(), key);
    if (key !== text && this.renamedKeys.length < 5)
      this.renamedKeys.push(`'${oneLine(text, 40)}' → ${key}`);
    return first ?? key;
  }

  private value(v: unknown): FindingValue {
    return asFindingValue(v, this.limits.maxValueChars);
  }

  /** The steps of the runs on the issue; an investigation's findings are one block. */
  runStream(evidence: IssueEvidence): Timed[] {
    const stream: Timed[] = [];
    for (const run of Array.isArray(evidence.runs) ? evidence.runs : []) {
      const playbook = asId(String(run?.playbook ?? "")) ?? "a playbook";
      for (const visit of Array.isArray(run?.path) ? run.path : []) {
        if (typeof visit?.step !== "string" || visit.step.includes("/")) continue;
        if (visit.status === "skipped") continue;
        const at = instant(visit.at);
        const push = (item: Item): void => {
          if (this.spend()) stream.push(at === undefined ? { item } : { item, at });
        };
        this.visitItems(visit, `step ${asId(visit.step) ?? "?"} of ${playbook}`, push);
      }
    }
    return stream;
  }

  private visitItems(visit: StepVisit, from: string, push: (item: Item) => void): void {
    const approvals = Array.isArray(visit.approvals)
      ? visit.approvals.flatMap((a) => voteOf(a) ?? [])
      : [];
    if (visit.kind === "investigate") {
      push({ t: "boundary" });
      for (const [k, v] of Object.entries(visit.findings ?? {})) {
        const key = this.findingKey(k);
        if (key !== undefined) push({ t: "record", key, value: this.value(v), from });
      }
      if (typeof visit.choice === "string")
        push({ t: "choice", label: visit.choice, condition: visit.condition ?? "", from });
      push({ t: "boundary" });
    } else if (approvals.length > 0) {
      push({ t: "approval", votes: approvals, from, adhoc: false });
    } else if (typeof visit.choice === "string" && visit.condition !== undefined) {
      push({ t: "boundary" });
      push({ t: "choice", label: visit.choice, condition: visit.condition, from });
      push({ t: "boundary" });
    } else {
      const kind = asId(String(visit.kind)) ?? "unknown";
      this.ignoredKinds.set(kind, (this.ignoredKinds.get(kind) ?? 0) + 1);
    }
  }

  /** Work people did by hand on the issue: records, notes, choices and approvals. */
  adhocStream(evidence: IssueEvidence): Timed[] {
    const stream: Timed[] = [];
    for (const e of Array.isArray(evidence.adhoc) ? evidence.adhoc : []) {
      if (!e || typeof e !== "object" || !this.spend()) continue;
      const at = instant(e.at);
      const item = this.adhocItem(e);
      if (item) stream.push(at === undefined ? { item } : { item, at });
    }
    return stream;
  }

  private adhocItem(e: AdhocEntry): Item | undefined {
    switch (e.kind) {
      case "record": {
        const key = this.findingKey(e.key);
        return key === undefined ? undefined : { t: "record", key, value: this.value(e.value) };
      }
      case "note": {
        const text = stripControls(String(e.text ?? ""), true);
        if (text.length > this.limits.maxNoteChars) this.notesCut++;
        const kept = prose(text, this.limits.maxNoteChars);
        return kept === "" ? undefined : { t: "note", text: kept };
      }
      case "choice":
        return e.condition === undefined
          ? { t: "choice", label: String(e.label) }
          : { t: "choice", label: String(e.label), condition: String(e.condition) };
      case "approval": {
        const v = voteOf(e);
        return v ? { t: "approval", votes: [v], adhoc: true } : undefined;
      }
      default:
        return undefined;
    }
  }

  /** The merged pull requests linked to the issue. */
  prStream(evidence: IssueEvidence): Timed[] {
    const stream: Timed[] = [];
    for (const pr of Array.isArray(evidence.pullRequests) ? evidence.pullRequests : []) {
      if (!pr || typeof pr !== "object" || !this.spend()) continue;
      const n =
        Number.isSafeInteger(pr.number) && pr.number > 0 ? `#${pr.number}` : "a pull request";
      if (pr.merged !== true) {
        this.unmerged.push(n);
        continue;
      }
      const at = instant(pr.at);
      stream.push(at === undefined ? { item: { t: "pr", pr } } : { item: { t: "pr", pr }, at });
    }
    return stream;
  }
}

function voteOf(v: { by: unknown; decision: unknown; permission?: unknown }): Vote | undefined {
  if (v.decision !== "approve" && v.decision !== "reject") return undefined;
  const out: Vote = {
    by: stripControls(String(v.by), false).slice(0, 100),
    decision: v.decision,
  };
  const p = asPermission(v.permission);
  if (p) out.permission = p;
  return out;
}

/** Groups the timeline's items into blocks, each of which becomes one or more steps. */
class BlockGrouper {
  readonly blocks: Block[] = [];
  private notes: string[] = [];
  private findings = new Map<string, FindingValue>();
  private from: string | undefined;
  private previous: Item["t"] | undefined;

  add(item: Item): void {
    switch (item.t) {
      case "note":
        if (this.findings.size > 0) this.flush();
        this.notes.push(item.text);
        break;
      case "record":
        this.findings.set(item.key, item.value);
        this.from ??= item.from;
        break;
      case "choice": {
        this.from ??= item.from;
        const choice: { label: string; condition?: string } = { label: item.label };
        if (item.condition !== undefined && item.condition !== "")
          choice.condition = item.condition;
        this.flush(choice);
        break;
      }
      case "boundary":
        if (this.findings.size > 0) this.flush();
        break;
      case "approval":
        this.approval(item);
        break;
      case "pr":
        if (this.findings.size > 0) this.flush();
        this.blocks.push({ kind: "pr", notes: this.notes, pr: item.pr });
        this.notes = [];
        break;
    }
    this.previous = item.t;
  }

  /** The last findings make a block; the notes after them describe the end. */
  end(): { endNotes: string[] } {
    if (this.findings.size > 0) this.flush();
    return { endNotes: this.notes };
  }

  private flush(choice?: { label: string; condition?: string }): void {
    if (this.findings.size === 0 && !choice) return;
    const block: Block = { kind: "investigation", notes: this.notes, findings: this.findings };
    if (choice) block.choice = choice;
    if (this.from !== undefined) block.from = this.from;
    this.blocks.push(block);
    this.notes = [];
    this.findings = new Map();
    this.from = undefined;
  }

  /** Approvals given by hand one after another are one checkpoint. */
  private approval(item: Extract<Item, { t: "approval" }>): void {
    if (this.findings.size > 0) this.flush();
    const last = this.blocks[this.blocks.length - 1];
    if (item.adhoc && this.previous === "approval" && last?.kind === "approval" && last.adhoc) {
      last.votes.push(...item.votes);
      return;
    }
    const block: Block = {
      kind: "approval",
      notes: this.notes,
      votes: [...item.votes],
      adhoc: item.adhoc,
    };
    if (item.from !== undefined) block.from = item.from;
    this.blocks.push(block);
    this.notes = [];
  }
}

/** Approvals: each person's last vote counts; a refused approval is not repeated. */
function countApprovals(blocks: readonly Block[]): {
  kept: Block[];
  approvalsOf: Map<Block, Vote[]>;
  refused: string[];
} {
  const refused: string[] = [];
  const approvalsOf = new Map<Block, Vote[]>();
  const kept = blocks.filter((b) => {
    if (b.kind !== "approval") return true;
    const last = new Map<string, Vote>();
    for (const v of b.votes) last.set(v.by.toLowerCase(), v);
    const votes = [...last.values()];
    if (votes.some((v) => v.decision === "reject")) {
      refused.push(b.from ?? "by hand");
      return false;
    }
    if (votes.length === 0) return false;
    approvalsOf.set(b, votes);
    return true;
  });
  return { kept, approvalsOf, refused };
}

/** Nothing on the issue to repeat: what a draft needs, and what the issue had instead. */
function noWork(
  issueRef: string,
  endNotes: readonly string[],
  reader: EvidenceReader,
  refused: readonly string[],
): DraftResult {
  const missing = [
    "no finding recorded (/record key=value)",
    "no choice (/choose) or approval (/approve) made by hand",
    "no run on it with an investigation, a choice or an approval",
    "no merged pull request linked to it",
  ];
  const extra: string[] = [];
  if (endNotes.length > 0)
    extra.push(
      `it has ${plural(endNotes.length, "note")}, but notes only describe steps: record at least one finding`,
    );
  if (reader.badKeys.length > 0)
    extra.push(
      `${plural(reader.badKeys.length, "recorded key")} could not be used as finding keys`,
    );
  if (refused.length > 0)
    extra.push(
      `${plural(refused.length, "approval")} ${refused.length === 1 ? "was" : "were"} refused`,
    );
  if (reader.unmerged.length > 0)
    extra.push(`pull requests ${reader.unmerged.join(", ")} are linked but not merged`);
  return {
    ok: false,
    problems: [
      {
        code: "no-work",
        message: `${issueRef[0]?.toUpperCase()}${issueRef.slice(1)} shows no work to repeat: ${missing.join("; ")}${extra.length ? ` (${extra.join("; ")})` : ""}.`,
      },
    ],
  };
}

/** A block with the ids of the steps it becomes (a pull request takes three). */
interface Planned {
  block: Block;
  ids: string[];
}

/** The ids of each block's steps, as many blocks as `maxSteps` allows (the end takes one). */
function planSteps(
  kept: readonly Block[],
  limits: DraftLimits,
): { planned: Planned[]; blocksCut: number } {
  const ids = new Ids();
  ids.reserve(DONE_STEP);
  ids.reserve(OTHER_PATH_STEP);
  let stepsLeft = limits.maxSteps - 1; // the end
  const planned: Planned[] = [];
  let blocksCut = 0;
  for (const block of kept) {
    const need = block.kind === "pr" ? 3 : 1;
    if (need > stepsLeft) {
      blocksCut++;
      continue;
    }
    stepsLeft -= need;
    if (block.kind === "investigation") {
      const first = block.findings.keys().next().value;
      planned.push({
        block,
        ids: [
          ids.take(
            block.name ??
              (first !== undefined
                ? `check-${first}`
                : `choose-${asId(block.choice?.label ?? "") ?? "way"}`),
          ),
        ],
      });
    } else if (block.kind === "approval") {
      planned.push({ block, ids: [ids.take("approve")] });
    } else {
      const n =
        Number.isSafeInteger(block.pr.number) && block.pr.number > 0
          ? String(block.pr.number)
          : String(planned.length + 1);
      planned.push({
        block,
        ids: [ids.take(`pr-${n}-branch`), ids.take(`pr-${n}-commit`), ids.take(`pr-${n}`)],
      });
    }
  }
  return { planned, blocksCut };
}

/** Turns planned blocks into segments: the steps, the golden case's events and path of each. */
class SegmentBuilder {
  /** The summary's lines of checkpoints and pull requests, in the draft's order. */
  readonly summary: string[] = [];
  findingsCut = 0;
  usesOtherPath = false;

  constructor(
    private readonly id: string,
    private readonly issueRef: string,
    private readonly limits: DraftLimits,
    private readonly planned: readonly Planned[],
    private readonly approvalsOf: ReadonlyMap<Block, Vote[]>,
    /** Pull requests the issue had (kept, planned or not): their branches then get a suffix. */
    private readonly prs: number,
  ) {}

  /** A prose field from the notes that describe it, or `fallback` when there are none. */
  readonly described = (notesOf: string[], fallback: string): string =>
    notesOf.length > 0 ? prose(notesOf.join("\n\n"), this.limits.maxProseChars) : fallback;

  private firstId(i: number): string {
    return this.planned[i]?.ids[0] ?? DONE_STEP;
  }

  segment({ block, ids }: Planned, i: number): Segment {
    if (block.kind === "investigation") return this.investigation(block, ids[0] as string, i);
    if (block.kind === "approval") return this.approval(block, ids[0] as string);
    return this.pullRequest(block, ids as [string, string, string]);
  }

  private investigation(block: InvestigationBlock, stepId: string, i: number): Segment {
    const { issueRef, limits } = this;
    const keys = [...block.findings.keys()];
    const expected = keys.slice(0, limits.maxFindingsPerStep);
    this.findingsCut += keys.length - expected.length;
    const where = block.from ? ` (${oneLine(block.from, 80)})` : "";
    const step: InvestigateStep = {
      id: stepId,
      type: "investigate",
      description: this.described(
        block.notes,
        expected.length > 0
          ? `Find out ${expected.join(", ")}, as was done on ${issueRef}${where}.`
          : `Choose how to go on, as was chosen on ${issueRef}${where}.`,
      ),
    };
    if (expected.length > 0) step.expected_findings = expected;
    const events: TestEvent[] = [];
    if (expected.length > 0)
      events.push({
        record: {
          findings: Object.fromEntries(
            expected.map((k) => [k, block.findings.get(k) as FindingValue]),
          ),
        },
      });
    const segment: Segment = { steps: [step], events, path: [stepId] };
    if (block.choice) this.choice(block.choice, step, segment, i);
    return segment;
  }

  /** The way chosen on the issue, and a second branch for the ways it did not take. */
  private choice(
    choice: { label: string; condition?: string },
    step: InvestigateStep,
    segment: Segment,
    i: number,
  ): void {
    this.usesOtherPath = true;
    const label = asId(choice.label) ?? "taken";
    const other = label.toLowerCase() === "other" ? "something-else" : "other";
    const condition =
      choice.condition !== undefined ? oneLine(choice.condition, this.limits.maxLineChars) : "";
    step.next = [
      {
        condition: condition !== "" ? condition : `${label}, the way taken on ${this.issueRef}`,
        label,
        goto: this.firstId(i + 1),
      },
      {
        condition: "none of these: this is not the way the playbook was drafted from",
        label: other,
        goto: OTHER_PATH_STEP,
      },
    ];
    const choose: TestEvent = { choose: { branch: label } };
    segment.events.push(choose);
    segment.choose = { event: choose, other };
  }

  private approval(block: Extract<Block, { kind: "approval" }>, stepId: string): Segment {
    const issueRef = this.issueRef;
    const votes = this.approvalsOf.get(block) ?? [];
    const known = votes.map((v) => v.permission);
    const permission: Permission = known.every((p): p is Permission => p !== undefined)
      ? known.reduce((a, b) => (permissionRank(b) < permissionRank(a) ? b : a))
      : "write";
    const count = Math.min(votes.length, 3);
    const where = block.from ? ` (${oneLine(block.from, 80)})` : "";
    const step: CheckpointStep = {
      id: stepId,
      type: "checkpoint",
      description: `An approval before going on, as given on ${issueRef}${where}.`,
      message: this.described(
        block.notes,
        `Approve going on? ${plural(votes.length, "person", "people")} approved this on ${issueRef}.`,
      ),
      approvers: { permission, count },
    };
    const taken = new Set<string>(["test-initiator"]);
    const events: TestEvent[] = votes.slice(0, count).map((v, k) => {
      let by = asLogin(v.by);
      if (by === undefined || taken.has(by.toLowerCase())) by = `approver-${k + 1}`;
      while (taken.has(by.toLowerCase())) by = `${by}-x`;
      taken.add(by.toLowerCase());
      return { approve: { by, permission } };
    });
    this.summary.push(
      `${stepId} (checkpoint): approved by ${plural(votes.length, "person", "people")}; approvers need ${permission}${known.every((p) => p !== undefined) ? " (the lowest role all of them hold)" : " (not every approver's role was known)"}, ${plural(count, "approval")}.`,
    );
    return { steps: [step], events, path: [stepId] };
  }

  /** A merged pull request: a branch, a commit of a placeholder note, and the pull request. */
  private pullRequest(
    block: Extract<Block, { kind: "pr" }>,
    [branchId, commitId, prId]: [string, string, string],
  ): Segment {
    const { id, limits } = this;
    const pr = block.pr;
    const n =
      Number.isSafeInteger(pr.number) && pr.number > 0 ? `#${pr.number}` : "the pull request";
    const prTitle = oneLine(String(pr.title ?? ""), limits.maxLineChars);
    const base = asRefName(pr.base);
    const suffix = this.prs > 1 ? `-${prId.replace(/^pr-/, "")}` : "";
    const branch: Step = {
      id: branchId,
      type: "branch",
      description: `A branch for the change, as ${n} made${pr.branch ? ` on ${oneLine(String(pr.branch), 100)}` : ""}.`,
      name: `playbook/${id}${suffix}-{{ run.id }}`,
    };
    if (base) branch.from = base;
    const commit: Step = {
      id: commitId,
      type: "commit",
      description: `Commit the change of ${n}.`,
      branch: `{{ steps.${branchId}.outputs.name }}`,
      message: prTitle || `The change of ${id}`,
      files: [
        {
          path: `changes/${id}/{{ run.id }}${suffix}.md`,
          content: this.placeholder(pr, n, prTitle),
        },
      ],
    };
    const request: Step = {
      id: prId,
      type: "pull_request",
      description: this.described(
        block.notes,
        `Open the pull request and wait for its merge, as ${n} was merged.`,
      ),
      head: `{{ steps.${branchId}.outputs.name }}`,
      ...(base ? { base } : {}),
      title: prTitle || `The change of ${id}`,
      body: `Opened by the playbook ${id}, run {{ run.id }}.`,
      closes_issue: true,
      wait: "merged",
    };
    this.summary.push(
      `${branchId}, ${commitId}, ${prId}: the pull request ${n}${prTitle ? ` "${prTitle}"` : ""}; the commit writes a placeholder note (changes/${id}/…md) — put the change itself in its files before relying on the playbook.`,
    );
    return {
      steps: [branch, commit, request],
      events: [{ merge: true }],
      path: [branchId, commitId, prId],
    };
  }

  /** The note the commit writes in place of the change: what the pull request changed. */
  private placeholder(pr: LinkedPullRequest, n: string, prTitle: string): string {
    const { id, issueRef, limits } = this;
    const files = (Array.isArray(pr.files) ? pr.files : [])
      .slice(0, limits.maxFiles)
      .map((f) => oneLine(String(f), 200))
      .filter((f) => f !== "");
    const moreFiles = Array.isArray(pr.files) ? Math.max(0, pr.files.length - files.length) : 0;
    return prose(
      [
        `# ${prTitle || `The change of ${id}`}`,
        "",
        `This file stands in for the change that ${n} made for ${issueRef}: replace it with the change itself.`,
        ...(files.length > 0 ? ["", `${n} changed:`, ...files.map((f) => `- ${f}`)] : []),
        ...(moreFiles > 0 ? [`- and ${plural(moreFiles, "more file")}`] : []),
      ].join("\n"),
      limits.maxProseChars * 4,
    );
  }
}

/** The segments' steps, then the end, and the end of the ways not taken when a choice has one. */
function withEnds(
  segments: readonly Segment[],
  issueRef: string,
  endNotes: string[],
  usesOtherPath: boolean,
  described: (notesOf: string[], fallback: string) => string,
): Step[] {
  const done: EndStep = {
    id: DONE_STEP,
    type: "end",
    status: "success",
    description: `The work of ${issueRef} is done.`,
    advice: described(endNotes, `Done, the way it was done on ${issueRef}.`),
  };
  const steps: Step[] = [...segments.flatMap((s) => s.steps), done];
  if (usesOtherPath)
    steps.push({
      id: OTHER_PATH_STEP,
      type: "end",
      status: "neutral",
      description: "A way the playbook was not drafted from: people go on by hand.",
      advice:
        "This run left the way the playbook was drafted from: go on by hand, and record what you find so that the playbook can learn it.",
    });
  return steps;
}

/** The golden case that replays the issue, and one that takes the first way not taken. */
function goldenCases(segments: readonly Segment[], issueRef: string): TestCase[] {
  const tests: TestCase[] = [
    {
      name: `replays the work of ${issueRef}`,
      events: segments.flatMap((s) => s.events),
      expect: { path: [...segments.flatMap((s) => s.path), DONE_STEP], status: "completed" },
    },
  ];
  const firstChoice = segments.findIndex((s) => s.choose);
  if (firstChoice >= 0) {
    const before = segments.slice(0, firstChoice);
    const at = segments[firstChoice] as Segment;
    const choose = at.choose as { event: TestEvent; other: string };
    tests.push({
      name: "a way not taken on the issue ends for people to go on by hand",
      events: [
        ...before.flatMap((s) => s.events),
        ...at.events.filter((e) => e !== choose.event),
        { choose: { branch: choose.other } },
      ],
      expect: {
        path: [...before.flatMap((s) => s.path), ...at.path, OTHER_PATH_STEP],
        status: "completed",
      },
    });
  }
  return tests;
}

/** The summary's first lines: what was drafted, and each investigation. */
function summaryHead(
  id: string,
  issueRef: string,
  steps: readonly Step[],
  tests: readonly TestCase[],
  segments: readonly Segment[],
): string[] {
  const counts = new Map<string, number>();
  for (const s of steps) counts.set(s.type, (counts.get(s.type) ?? 0) + 1);
  const head = [
    `Drafted ${id} from ${issueRef}: ${plural(steps.length, "step")} (${[...counts].map(([k, n]) => `${n} ${k}`).join(", ")}) and ${plural(tests.length, "golden case")}.`,
  ];
  for (const s of segments)
    for (const step of s.steps)
      if (step.type === "investigate")
        head.push(
          `${step.id} (investigate): ${step.expected_findings?.length ? `expects ${step.expected_findings.join(", ")}` : "no findings"}${Array.isArray(step.next) ? `; then /choose ${step.next.map((b) => b.label).join(" or ")}` : ""}.`,
        );
  return head;
}

/** What the draft left out, renamed or bounded (besides what the evidence reader kept). */
interface LeftOut {
  labels: string[];
  skippedLabels: string[];
  refused: string[];
  findingsCut: number;
  blocksCut: number;
  usesOtherPath: boolean;
  warnings: string[];
}

/** The summary's last lines: how the draft starts, and what it left out and why. */
function leftOutNotes(reader: EvidenceReader, left: LeftOut, limits: DraftLimits): string[] {
  const { labels, skippedLabels, refused } = left;
  const { badKeys, unmerged } = reader;
  const notes: string[] = [];
  if (labels.length > 0)
    notes.push(`Started by the label${labels.length > 1 ? "s" : ""} ${labels.join(", ")}.`);
  if (skippedLabels.length > 0)
    notes.push(
      `Labels left out of on.labels (generic or not plain text): ${skippedLabels.join(", ")}.`,
    );
  if (badKeys.length > 0)
    notes.push(
      `${plural(badKeys.length, "recorded key")} could not become finding keys and ${badKeys.length === 1 ? "was" : "were"} left out${
        badKeys.some((k) => k)
          ? `: ${badKeys
              .filter((k) => k)
              .map((k) => `'${k}'`)
              .join(", ")}`
          : ""
      }.`,
    );
  if (reader.renamedKeys.length > 0)
    notes.push(`Keys renamed to fit the id pattern: ${reader.renamedKeys.join(", ")}.`);
  if (refused.length > 0)
    notes.push(
      `${plural(refused.length, "approval")} refused on the issue ${refused.length === 1 ? "is" : "are"} not repeated.`,
    );
  if (unmerged.length > 0)
    notes.push(`Pull requests linked but not merged are left out: ${unmerged.join(", ")}.`);
  if (reader.ignoredKinds.size > 0)
    notes.push(
      `Steps of runs that were the bot's own work are not repeated: ${[...reader.ignoredKinds].map(([k, n]) => `${n} ${k}`).join(", ")}.`,
    );
  if (reader.notesCut > 0)
    notes.push(`${plural(reader.notesCut, "note")} cut to ${limits.maxNoteChars} characters.`);
  if (left.findingsCut > 0)
    notes.push(
      `${plural(left.findingsCut, "finding")} beyond ${limits.maxFindingsPerStep} a step left out.`,
    );
  if (left.blocksCut > 0)
    notes.push(
      `${plural(left.blocksCut, "later piece")} of work left out: a draft has at most ${limits.maxSteps} steps.`,
    );
  if (reader.overBudget)
    notes.push(`Only the first ${limits.maxEntries} entries of the issue were read.`);
  if (left.usesOtherPath)
    notes.push(
      `Each choice has a second branch to ${OTHER_PATH_STEP}, for ways the issue did not take.`,
    );
  for (const w of left.warnings) notes.push(`Validation warning: ${w}`);
  return notes;
}
