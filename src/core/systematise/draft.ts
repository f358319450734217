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
  type FindingValue,
  type IssueEvidence,
  type LinkedPullRequest,
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

  const summary: string[] = [];
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

  // --- The timeline: runs' steps, work by hand and merged pull requests, in the order of time.
  let budget = limits.maxEntries;
  let overBudget = false;
  const spend = (): boolean => {
    if (budget <= 0) {
      overBudget = true;
      return false;
    }
    budget--;
    return true;
  };
  const keyOf = new Map<string, string>();
  const badKeys: string[] = [];
  const renamedKeys: string[] = [];
  const findingKey = (raw: unknown): string | undefined => {
    const text = String(raw);
    const key = asId(text);
    if (key === undefined) {
      if (badKeys.length < 5) badKeys.push(oneLine(text, 40));
      else badKeys.push("");
      return undefined;
    }
    const first = keyOf.get(key.toLowerCase());
    if (first === undefined) keyOf.set(key.toLowerCase(), key);
    if (key !== text && renamedKeys.length < 5) renamedKeys.push(`'${oneLine(text, 40)}' → ${key}`);
    return first ?? key;
  };
  const value = (v: unknown): FindingValue => asFindingValue(v, limits.maxValueChars);
  const vote = (v: { by: unknown; decision: unknown; permission?: unknown }): Vote | undefined => {
    if (v.decision !== "approve" && v.decision !== "reject") return undefined;
    const out: Vote = {
      by: stripControls(String(v.by), false).slice(0, 100),
      decision: v.decision,
    };
    const p = asPermission(v.permission);
    if (p) out.permission = p;
    return out;
  };

  const runStream: Timed[] = [];
  const ignoredKinds = new Map<string, number>();
  for (const run of Array.isArray(evidence.runs) ? evidence.runs : []) {
    const playbook = asId(String(run?.playbook ?? "")) ?? "a playbook";
    for (const visit of Array.isArray(run?.path) ? run.path : []) {
      if (typeof visit?.step !== "string" || visit.step.includes("/")) continue;
      if (visit.status === "skipped") continue;
      const at = instant(visit.at);
      const from = `step ${asId(visit.step) ?? "?"} of ${playbook}`;
      const push = (item: Item): void => {
        if (spend()) runStream.push(at === undefined ? { item } : { item, at });
      };
      const approvals = Array.isArray(visit.approvals)
        ? visit.approvals.flatMap((a) => vote(a) ?? [])
        : [];
      if (visit.kind === "investigate") {
        push({ t: "boundary" });
        for (const [k, v] of Object.entries(visit.findings ?? {})) {
          const key = findingKey(k);
          if (key !== undefined) push({ t: "record", key, value: value(v), from });
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
        ignoredKinds.set(kind, (ignoredKinds.get(kind) ?? 0) + 1);
      }
    }
  }

  const adhocStream: Timed[] = [];
  let notesCut = 0;
  for (const e of Array.isArray(evidence.adhoc) ? evidence.adhoc : []) {
    if (!e || typeof e !== "object" || !spend()) continue;
    const at = instant(e.at);
    const push = (item: Item): void => {
      adhocStream.push(at === undefined ? { item } : { item, at });
    };
    switch (e.kind) {
      case "record": {
        const key = findingKey(e.key);
        if (key !== undefined) push({ t: "record", key, value: value(e.value) });
        break;
      }
      case "note": {
        const text = stripControls(String(e.text ?? ""), true);
        if (text.length > limits.maxNoteChars) notesCut++;
        const kept = prose(text, limits.maxNoteChars);
        if (kept !== "") push({ t: "note", text: kept });
        break;
      }
      case "choice":
        push(
          e.condition === undefined
            ? { t: "choice", label: String(e.label) }
            : { t: "choice", label: String(e.label), condition: String(e.condition) },
        );
        break;
      case "approval": {
        const v = vote(e);
        if (v) push({ t: "approval", votes: [v], adhoc: true });
        break;
      }
      default:
        break;
    }
  }

  const prStream: Timed[] = [];
  const unmerged: string[] = [];
  for (const pr of Array.isArray(evidence.pullRequests) ? evidence.pullRequests : []) {
    if (!pr || typeof pr !== "object" || !spend()) continue;
    const n = Number.isSafeInteger(pr.number) && pr.number > 0 ? `#${pr.number}` : "a pull request";
    if (pr.merged !== true) {
      unmerged.push(n);
      continue;
    }
    const at = instant(pr.at);
    prStream.push(at === undefined ? { item: { t: "pr", pr } } : { item: { t: "pr", pr }, at });
  }

  const timeline = mergeByTime([runStream, adhocStream, prStream]);

  // --- Blocks: consecutive records form one investigation, notes describe what follows them.
  let blocks: Block[] = [];
  let notes: string[] = [];
  let findings = new Map<string, FindingValue>();
  let from: string | undefined;
  let previous: Item["t"] | undefined;
  const flush = (choice?: { label: string; condition?: string }): void => {
    if (findings.size === 0 && !choice) return;
    const block: Block = { kind: "investigation", notes, findings };
    if (choice) block.choice = choice;
    if (from !== undefined) block.from = from;
    blocks.push(block);
    notes = [];
    findings = new Map();
    from = undefined;
  };
  for (const item of timeline) {
    switch (item.t) {
      case "note":
        if (findings.size > 0) flush();
        notes.push(item.text);
        break;
      case "record":
        findings.set(item.key, item.value);
        from ??= item.from;
        break;
      case "choice": {
        from ??= item.from;
        const choice: { label: string; condition?: string } = { label: item.label };
        if (item.condition !== undefined && item.condition !== "")
          choice.condition = item.condition;
        flush(choice);
        break;
      }
      case "boundary":
        if (findings.size > 0) flush();
        break;
      case "approval": {
        if (findings.size > 0) flush();
        const last = blocks[blocks.length - 1];
        if (item.adhoc && previous === "approval" && last?.kind === "approval" && last.adhoc) {
          last.votes.push(...item.votes);
        } else {
          const block: Block = {
            kind: "approval",
            notes,
            votes: [...item.votes],
            adhoc: item.adhoc,
          };
          if (item.from !== undefined) block.from = item.from;
          blocks.push(block);
          notes = [];
        }
        break;
      }
      case "pr":
        if (findings.size > 0) flush();
        blocks.push({ kind: "pr", notes, pr: item.pr });
        notes = [];
        break;
    }
    previous = item.t;
  }
  if (findings.size > 0) flush();
  const endNotes = notes;
  const seamsNotes: string[] = [];
  if (options.seams !== undefined) {
    const regrouped = applySeams(blocks, options.seams);
    if (regrouped.ok) blocks = regrouped.blocks;
    seamsNotes.push(
      regrouped.ok
        ? regrouped.note
        : `The AI adapter's grouping of findings was not used (${regrouped.reason}); the draft keeps the order of the issue.`,
    );
  }

  // --- Approvals: each person's last vote counts; a refused approval is not repeated.
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

  if (kept.length === 0) {
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
    if (badKeys.length > 0)
      extra.push(`${plural(badKeys.length, "recorded key")} could not be used as finding keys`);
    if (refused.length > 0)
      extra.push(
        `${plural(refused.length, "approval")} ${refused.length === 1 ? "was" : "were"} refused`,
      );
    if (unmerged.length > 0)
      extra.push(`pull requests ${unmerged.join(", ")} are linked but not merged`);
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

  // --- Steps, ids and the golden case.
  const ids = new Ids();
  ids.reserve(DONE_STEP);
  ids.reserve(OTHER_PATH_STEP);
  const prs = kept.filter((b) => b.kind === "pr").length;
  let stepsLeft = limits.maxSteps - 1; // the end
  const planned: { block: Block; ids: string[] }[] = [];
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
  const firstId = (i: number): string => planned[i]?.ids[0] ?? DONE_STEP;
  const described = (notesOf: string[], fallback: string): string =>
    notesOf.length > 0 ? prose(notesOf.join("\n\n"), limits.maxProseChars) : fallback;

  const segments: Segment[] = [];
  let findingsCut = 0;
  let usesOtherPath = false;
  planned.forEach(({ block, ids: own }, i) => {
    const stepId = own[0] as string;
    if (block.kind === "investigation") {
      const keys = [...block.findings.keys()];
      const expected = keys.slice(0, limits.maxFindingsPerStep);
      findingsCut += keys.length - expected.length;
      const where = block.from ? ` (${oneLine(block.from, 80)})` : "";
      const step: InvestigateStep = {
        id: stepId,
        type: "investigate",
        description: described(
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
      if (block.choice) {
        usesOtherPath = true;
        const label = asId(block.choice.label) ?? "taken";
        const other = label.toLowerCase() === "other" ? "something-else" : "other";
        const condition =
          block.choice.condition !== undefined
            ? oneLine(block.choice.condition, limits.maxLineChars)
            : "";
        step.next = [
          {
            condition: condition !== "" ? condition : `${label}, the way taken on ${issueRef}`,
            label,
            goto: firstId(i + 1),
          },
          {
            condition: "none of these: this is not the way the playbook was drafted from",
            label: other,
            goto: OTHER_PATH_STEP,
          },
        ];
        const choose: TestEvent = { choose: { branch: label } };
        events.push(choose);
        segment.choose = { event: choose, other };
      }
      segments.push(segment);
    } else if (block.kind === "approval") {
      const votes = approvalsOf.get(block) ?? [];
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
        message: described(
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
      segments.push({ steps: [step], events, path: [stepId] });
      summary.push(
        `${stepId} (checkpoint): approved by ${plural(votes.length, "person", "people")}; approvers need ${permission}${known.every((p) => p !== undefined) ? " (the lowest role all of them hold)" : " (not every approver's role was known)"}, ${plural(count, "approval")}.`,
      );
    } else {
      const [branchId, commitId, prId] = own as [string, string, string];
      const pr = block.pr;
      const n =
        Number.isSafeInteger(pr.number) && pr.number > 0 ? `#${pr.number}` : "the pull request";
      const prTitle = oneLine(String(pr.title ?? ""), limits.maxLineChars);
      const base = asRefName(pr.base);
      const suffix = prs > 1 ? `-${own[2]?.replace(/^pr-/, "")}` : "";
      const files = (Array.isArray(pr.files) ? pr.files : [])
        .slice(0, limits.maxFiles)
        .map((f) => oneLine(String(f), 200))
        .filter((f) => f !== "");
      const moreFiles = Array.isArray(pr.files) ? Math.max(0, pr.files.length - files.length) : 0;
      const branch: Step = {
        id: branchId,
        type: "branch",
        description: `A branch for the change, as ${n} made${pr.branch ? ` on ${oneLine(String(pr.branch), 100)}` : ""}.`,
        name: `playbook/${id}${suffix}-{{ run.id }}`,
      };
      if (base) branch.from = base;
      const content = prose(
        [
          `# ${prTitle || `The change of ${id}`}`,
          "",
          `This file stands in for the change that ${n} made for ${issueRef}: replace it with the change itself.`,
          ...(files.length > 0 ? ["", `${n} changed:`, ...files.map((f) => `- ${f}`)] : []),
          ...(moreFiles > 0 ? [`- and ${plural(moreFiles, "more file")}`] : []),
        ].join("\n"),
        limits.maxProseChars * 4,
      );
      const commit: Step = {
        id: commitId,
        type: "commit",
        description: `Commit the change of ${n}.`,
        branch: `{{ steps.${branchId}.outputs.name }}`,
        message: prTitle || `The change of ${id}`,
        files: [{ path: `changes/${id}/{{ run.id }}${suffix}.md`, content }],
      };
      const request: Step = {
        id: prId,
        type: "pull_request",
        description: described(
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
      segments.push({
        steps: [branch, commit, request],
        events: [{ merge: true }],
        path: [branchId, commitId, prId],
      });
      summary.push(
        `${branchId}, ${commitId}, ${prId}: the pull request ${n}${prTitle ? ` "${prTitle}"` : ""}; the commit writes a placeholder note (changes/${id}/…md) — put the change itself in its files before relying on the playbook.`,
      );
    }
  });

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
  };
  if (labels.length > 0) playbook.on = { labels };
  playbook.steps = steps;
  playbook.tests = tests;

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
  const notes2: string[] = [...seamsNotes];
  if (labels.length > 0)
    notes2.push(`Started by the label${labels.length > 1 ? "s" : ""} ${labels.join(", ")}.`);
  if (skippedLabels.length > 0)
    notes2.push(
      `Labels left out of on.labels (generic or not plain text): ${skippedLabels.join(", ")}.`,
    );
  if (badKeys.length > 0)
    notes2.push(
      `${plural(badKeys.length, "recorded key")} could not become finding keys and ${badKeys.length === 1 ? "was" : "were"} left out${
        badKeys.some((k) => k)
          ? `: ${badKeys
              .filter((k) => k)
              .map((k) => `'${k}'`)
              .join(", ")}`
          : ""
      }.`,
    );
  if (renamedKeys.length > 0)
    notes2.push(`Keys renamed to fit the id pattern: ${renamedKeys.join(", ")}.`);
  if (refused.length > 0)
    notes2.push(
      `${plural(refused.length, "approval")} refused on the issue ${refused.length === 1 ? "is" : "are"} not repeated.`,
    );
  if (unmerged.length > 0)
    notes2.push(`Pull requests linked but not merged are left out: ${unmerged.join(", ")}.`);
  if (ignoredKinds.size > 0)
    notes2.push(
      `Steps of runs that were the bot's own work are not repeated: ${[...ignoredKinds].map(([k, n]) => `${n} ${k}`).join(", ")}.`,
    );
  if (notesCut > 0)
    notes2.push(`${plural(notesCut, "note")} cut to ${limits.maxNoteChars} characters.`);
  if (findingsCut > 0)
    notes2.push(
      `${plural(findingsCut, "finding")} beyond ${limits.maxFindingsPerStep} a step left out.`,
    );
  if (blocksCut > 0)
    notes2.push(
      `${plural(blocksCut, "later piece")} of work left out: a draft has at most ${limits.maxSteps} steps.`,
    );
  if (overBudget)
    notes2.push(`Only the first ${limits.maxEntries} entries of the issue were read.`);
  if (usesOtherPath)
    notes2.push(
      `Each choice has a second branch to ${OTHER_PATH_STEP}, for ways the issue did not take.`,
    );
  for (const w of checked.warnings) notes2.push(`Validation warning: ${w}`);
  return {
    ok: true,
    playbook: checked.playbook,
    yaml: checked.yaml,
    summary: [...head, ...summary, ...notes2],
  };
}
