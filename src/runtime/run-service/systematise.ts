import type { Reply } from "../../core/engine/events.js";
import type { RunState } from "../../core/engine/state.js";
import type { PlaybookDocument } from "../../core/format/types.js";
import type { KnownPlaybook } from "../../core/rules/analysis/set.js";
import {
  applyWording,
  draftPlaybook,
  proposeImprovement,
  type Draft,
  type IssueEvidence,
  type RunAdhoc,
  type RunEvidence,
  type Wording,
} from "../../core/systematise/index.js";
import { runEvidenceOf } from "../../core/systematise/from-state.js";
import {
  code,
  issueRef,
  list,
  paragraph,
  renderMarkdown,
  strong,
} from "../../core/markdown/index.js";
import { adhocEvidence, type AdhocLog } from "./adhoc-log.js";
import { collectAiOutputs, findingsInText, type AiAdapter } from "../ai.js";
import type { GitHubPort } from "../github-port.js";
import type { EffectOutcome } from "../effects.js";

/** Where a playbook's file is, when it is one of this repository's. */
export const REPOSITORY_PLAYBOOKS = ".github/playbooks/";
/** Pull requests that name the issue, read as evidence. */
const LINKED_PULLS = 5;
/** Other issues whose runs of a playbook are read for its improvement. */
const OTHER_ISSUES = 10;

export interface SystematiseContext {
  port: GitHubPort;
  repo: { owner: string; name: string };
  issue: { number: number; title: string; labels?: string[] };
  /** The playbooks at the head of the default branch, with their files where known. */
  known: KnownPlaybook[];
  sourceOf: (id: string) => { file: string; source: string } | undefined;
  /** The issue's runs (newest first), each with its playbook as it ran. */
  runs: { run: RunState; playbook?: PlaybookDocument }[];
  adhoc: AdhocLog;
  /** Runs of a playbook on other issues (those labelled to start it), verified. */
  otherRuns: (playbook: string, limit: number) => Promise<{ run: RunState; issue: number }[]>;
  ai?: AiAdapter;
}

/** A reply that is a comment of its own: accepted, with its body. */
type Answer = Reply & { body?: string };

/**
 * `/systematise <id>`: a playbook drafted from what the issue shows (its work by hand, its runs,
 * the pull requests that name it), proposed in a pull request that adds
 * `.github/playbooks/<id>.yml`. `/systematise` alone: an improvement of the playbook that ran
 * here last, from its runs here and on other issues, proposed as a change of its file. The draft
 * must validate before anything is proposed; nothing is ever merged.
 */
export async function systematise(
  ctx: SystematiseContext,
  id: string | undefined,
  key: string,
): Promise<Answer> {
  const pulls = (await ctx.port.linkedPullRequests?.(ctx.issue.number, LINKED_PULLS)) ?? [];
  const runs: RunEvidence[] = ctx.runs.map((r) => runEvidenceOf(r.run, r.playbook)).reverse();
  const evidence: IssueEvidence = {
    repo: { owner: ctx.repo.owner, name: ctx.repo.name },
    issue: { number: ctx.issue.number, title: ctx.issue.title, labels: ctx.issue.labels ?? [] },
    adhoc: adhocEvidence(ctx.adhoc),
    runs,
    pullRequests: pulls,
  };
  return id === undefined ? improve(ctx, evidence, key) : draft(ctx, evidence, id, key);
}

async function draft(
  ctx: SystematiseContext,
  evidence: IssueEvidence,
  id: string,
  key: string,
): Promise<Answer> {
  if (ctx.known.some((k) => k.id === id))
    return {
      outcome: "refused",
      reason: `a playbook '${id}' exists here; \`/systematise\` without an id proposes changes to the playbook that ran on this issue`,
    };
  const drafted = draftPlaybook(evidence, id, { known: ctx.known });
  if (!drafted.ok)
    return {
      outcome: "refused",
      reason: drafted.problems.map((p) => p.message).join("; "),
    };
  let result: Draft = drafted;
  const shape = await askShape(ctx.ai, drafted);
  if (shape?.investigations !== undefined) {
    const regrouped = draftPlaybook(evidence, id, {
      known: ctx.known,
      seams: shape.investigations,
    });
    // A grouping that leaves no valid draft is the model's mistake: keep the drafted seams.
    result = regrouped.ok
      ? regrouped
      : {
          ...drafted,
          summary: [
            ...drafted.summary,
            "The AI adapter's grouping of findings gave no valid draft; the draft keeps the order of the issue.",
          ],
        };
  }
  if (shape) result = applyWording(result, shape, { known: ctx.known });
  const path = `${REPOSITORY_PLAYBOOKS}${id}.yml`;
  const pr = await ctx.port.proposeFiles?.(ctx.issue.number, key, {
    branch: `playbook-bot/systematise-${id}`,
    files: [{ path, content: result.yaml }],
    message: `Add playbook ${id}, drafted from #${ctx.issue.number}`,
    title: `Playbook ${id}, drafted from #${ctx.issue.number}`,
    body: proposalBody(ctx.issue.number, `drafted the playbook \`${id}\``, result.summary),
  });
  if (!pr?.ok) return notProposed(pr);
  return {
    outcome: "accepted",
    body: renderMarkdown(
      paragraph(
        "Drafted the playbook ",
        code(id),
        " from this issue: ",
        issueRef(pr.outputs.number),
        ` adds ${path}. Review it as a diff; it is not merged by the bot.`,
      ),
      list(result.summary.slice(0, 20)),
    ),
  };
}

async function improve(
  ctx: SystematiseContext,
  evidence: IssueEvidence,
  key: string,
): Promise<Answer> {
  const last = ctx.runs[0];
  const id = last?.run.stack[0]?.playbook;
  if (!last || !id)
    return {
      outcome: "refused",
      reason: "no playbook ran on this issue: name the new one, `/systematise <id>`",
    };
  const source = ctx.sourceOf(id);
  const playbook = ctx.known.find((k) => k.id === id);
  if (!source || !playbook || !source.file.startsWith(REPOSITORY_PLAYBOOKS))
    return {
      outcome: "refused",
      reason: `the playbook '${id}' is not a file of this repository's ${REPOSITORY_PLAYBOOKS}, so no change of it can be proposed here`,
    };
  const here = evidence.runs
    .filter((r) => r.playbook === id)
    .map((r) => ({ ...r, issue: ctx.issue.number }));
  const elsewhere = (await ctx.otherRuns(id, OTHER_ISSUES)).map((o) => ({
    ...runEvidenceOf(o.run, playbook.playbook),
    issue: o.issue,
  }));
  const proposal = proposeImprovement(
    source.source,
    playbook.playbook,
    [...elsewhere, ...here],
    adhocByRun(ctx, here, evidence),
    {
      known: ctx.known.filter((k) => k.id !== id),
      file: source.file,
    },
  );
  if (!proposal || proposal.status !== "proposed")
    return nothingProposed(id, proposal, here.length + elsewhere.length);
  const pr = await ctx.port.proposeFiles?.(ctx.issue.number, key, {
    branch: `playbook-bot/improve-${id}`,
    files: [{ path: source.file, content: proposal.yaml }],
    message: `Improve playbook ${id} from its runs (#${ctx.issue.number})`,
    title: `Improve playbook ${id} from its runs`,
    body: proposalBody(
      ctx.issue.number,
      `proposed changes to \`${id}\` from ${here.length + elsewhere.length} of its runs`,
      [...proposal.changes.map((c) => `${c.kind} ${c.step}: ${c.reason}`), ...proposal.summary],
    ),
  });
  if (!pr?.ok) return notProposed(pr);
  return {
    outcome: "accepted",
    body: renderMarkdown(
      paragraph(
        strong(`${proposal.changes.length} change(s)`),
        " to ",
        code(id),
        " proposed in ",
        issueRef(pr.outputs.number),
        ". Review them as a diff; they are not merged by the bot.",
      ),
      list(proposal.changes.map((c) => [code(c.step), `: ${c.reason}`])),
    ),
  };
}

/** Work by hand on this issue, given to the run it followed or happened during. */
function adhocByRun(
  ctx: SystematiseContext,
  here: readonly { runId: string }[],
  evidence: IssueEvidence,
): RunAdhoc[] {
  const adhoc: RunAdhoc[] = [];
  const started = new Map(ctx.runs.map((r) => [r.run.id, Date.parse(r.run.startedAt)]));
  for (const r of here) {
    const from = started.get(r.runId) ?? NaN;
    const entries = evidence.adhoc.filter((e) => Number.isNaN(from) || Date.parse(e.at) >= from);
    if (entries.length > 0) adhoc.push({ runId: r.runId, entries });
  }
  return adhoc;
}

/** The answer when the runs read show no change to propose, or the change would not be valid. */
function nothingProposed(
  id: string,
  proposal: ReturnType<typeof proposeImprovement>,
  runsRead: number,
): Answer {
  if (!proposal)
    return {
      outcome: "accepted",
      body: renderMarkdown(
        paragraph(
          "Nothing to propose for ",
          code(id),
          ` from its ${runsRead} run(s) read: no work by hand it lacks, no step every run skipped, no approval every run gave.`,
        ),
      ),
    };
  return {
    outcome: "accepted",
    body: renderMarkdown(
      paragraph("No change of ", code(id), " is proposed:"),
      list(
        (proposal.status === "invalid"
          ? [...proposal.problems, ...proposal.summary]
          : proposal.summary
        ).slice(0, 20),
      ),
    ),
  };
}

/** Why a proposal was not made: the host cannot open pull requests, or GitHub refused. */
function notProposed(pr: EffectOutcome<"pull_request"> | undefined): Answer {
  return {
    outcome: "refused",
    reason: pr && !pr.ok ? pr.error.message : "this host cannot open pull requests",
  };
}

/** The pull request's description: where it came from, what it holds, that it is for review. */
function proposalBody(issue: number, what: string, summary: readonly string[]): string {
  return renderMarkdown(
    paragraph(
      `\`/systematise\` on `,
      issueRef(issue),
      ` ${what}. Review it as a diff: Playbook Bot never merges it.`,
    ),
    list(summary.slice(0, 40)),
  );
}

/** What the model may say about a draft: its seams and its words. */
type Shape = Wording & { investigations?: unknown };

/**
 * The shape of a draft from the AI adapter, asked as one JSON object: which findings make one
 * investigation (`investigations`, each with an id), a name, a description and each step's
 * description. The drafting checks the seams and the wording checks the words; the mock answers
 * nothing of use, so its draft stays deterministic; a failure or an answer without the object
 * leaves the draft as drafted.
 */
async function askShape(ai: AiAdapter | undefined, draft: Draft): Promise<Shape | undefined> {
  if (!ai || ai.name === "mock") return undefined;
  const steps = (draft.playbook.steps ?? [])
    .map(
      (s) =>
        `- ${s.id} (${s.type})${s.type === "investigate" && s.expected_findings ? `: ${s.expected_findings.join(", ")}` : ""}`,
    )
    .join("\n");
  const prompt = [
    "This playbook was drafted from an incident, grouping findings by the order people recorded them. Decide which findings belong to one piece of work, and word the playbook.",
    "1. investigations: the investigate steps as they should be, in order, each an id (lower-case words joined by hyphens) and the finding keys it expects. Keep every finding of the draft in the order shown; you may only move where one investigation ends and the next begins, and an investigation that ends with a choice must still end there.",
    "2. A short name, a one-sentence description, and for each step (by the ids you chose for investigations) a one-sentence description of what people do in it.",
    'Answer with a final ```json block: {"investigations": [{"id": "...", "findings": ["..."]}], "name": "...", "description": "...", "steps": {"<id>": {"description": "..."}}}. Do not add steps of other kinds.',
    "",
    draft.yaml,
    "",
    "Steps:",
    steps,
  ].join("\n");
  try {
    const out = await collectAiOutputs(ai, prompt, [], { scope: "read-only" });
    return findingsInText(out.text) as Shape | undefined;
  } catch {
    return undefined;
  }
}
