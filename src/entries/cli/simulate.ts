import { MemoryCoordination } from "../../adapters/coordination/memory.js";
import { repositoryStateKey } from "../../runtime/state-codec.js";
import { Ajv2020 } from "ajv/dist/2020.js";
import { IssueController } from "../../runtime/run-service/controller.js";
import { INDEX_MARKER, STATE_MARKER } from "../../runtime/run-service/status-comment.js";
import { ADHOC_MARKER } from "../../runtime/run-service/adhoc-log.js";
import { durationMs } from "../../core/engine/policy.js";
import { activeFrame } from "../../core/engine/state.js";
import type { PlaybookBundle } from "../../core/steps/types.js";
import type { FileReport } from "../../core/rules/validate.js";
import { MemoryGitHub } from "../../adapters/memory/github.js";
import {
  PERMISSIONS,
  DURATION_PATTERN,
  ID_PATTERN,
  TOOL_PATTERN,
} from "../../core/format/schema.js";
import type { ToolRunner } from "../../runtime/tool-calls.js";
import { formatPath, loadSourceText, parsePointer } from "../../core/format/source.js";
import type { Permission } from "../../core/format/types.js";

/** The scripted thread `simulate` replays. */
export interface Script {
  issue?: { title?: string; body?: string; author?: string };
  users?: Record<string, Permission>;
  teams?: Record<string, string[]>;
  /**
   * What each tool answers in this simulation, by `server/tool`: the bot's calls get these
   * results (an `{ error: "..." }` answer is a failed call); a tool not listed is not configured.
   */
  tools?: Record<string, unknown>;
  /** What the AI answers, by the id of its step (JSON answers as text or as YAML values). */
  ai?: Record<string, unknown>;
  events: ScriptEvent[];
}

export type ScriptEvent =
  | { label: string; by?: string }
  | { comment: string; by?: string; id?: string }
  | { edit: string; body: string }
  | { delete: string }
  | { merge: boolean | number }
  | { close_pr: boolean | number }
  /** A person opens a pull request (files on a branch of theirs) that names the issue. */
  | { pull_request: string; body?: string; files?: Record<string, string>; by?: string }
  | { workflow: "success" | "failure" | "cancelled" }
  | { wait: string };

const EVENT_KINDS = [
  "label",
  "comment",
  "edit",
  "delete",
  "merge",
  "close_pr",
  "pull_request",
  "workflow",
  "wait",
];

const SCRIPT_SCHEMA = {
  type: "object",
  additionalProperties: false,
  required: ["events"],
  properties: {
    issue: {
      type: "object",
      additionalProperties: false,
      properties: {
        title: { type: "string" },
        body: { type: "string" },
        author: { type: "string" },
      },
    },
    users: { type: "object", additionalProperties: { enum: [...PERMISSIONS] } },
    teams: { type: "object", additionalProperties: { type: "array", items: { type: "string" } } },
    tools: { type: "object", propertyNames: { pattern: TOOL_PATTERN } },
    ai: { type: "object", propertyNames: { pattern: ID_PATTERN } },
    events: {
      type: "array",
      items: {
        type: "object",
        minProperties: 1,
        additionalProperties: false,
        properties: {
          label: { type: "string" },
          comment: { type: "string" },
          edit: { type: "string" },
          delete: { type: "string" },
          body: { type: "string" },
          by: { type: "string" },
          id: { type: "string" },
          merge: { type: ["boolean", "integer"] },
          close_pr: { type: ["boolean", "integer"] },
          pull_request: { type: "string", minLength: 1 },
          files: { type: "object", additionalProperties: { type: "string" } },
          workflow: { enum: ["success", "failure", "cancelled"] },
          wait: { type: "string", pattern: DURATION_PATTERN },
        },
        oneOf: EVENT_KINDS.map((k) => ({ required: [k] })),
      },
    },
  },
};

export class ScriptError extends Error {}

/** Parse an events file; problems come with file:line:col. */
export function parseScript(file: string, text: string): Script {
  const loaded = loadSourceText(file, text);
  if (!loaded.ok) {
    const p = loaded.problems[0];
    throw new ScriptError(`${file}:${p?.span.line}:${p?.span.column}: ${p?.message}`);
  }
  const validate = new Ajv2020({ allErrors: true, strict: false, allowUnionTypes: true }).compile(
    SCRIPT_SCHEMA,
  );
  if (!validate(loaded.document.value)) {
    const e = (validate.errors ?? []).find((x) => x.keyword === "oneOf") ?? validate.errors?.[0];
    const path = parsePointer(e?.instancePath ?? "");
    const s = loaded.document.span(path);
    const what =
      e?.keyword === "oneOf"
        ? `an event has exactly one of ${EVENT_KINDS.join(", ")}`
        : `${e?.message ?? "invalid"}${e?.keyword === "additionalProperties" ? ` ('${String((e.params as { additionalProperty?: string }).additionalProperty)}')` : ""}`;
    throw new ScriptError(`${file}:${s.line}:${s.column}: ${formatPath(path)}: ${what}`);
  }
  return loaded.document.value as unknown as Script;
}

const REACTIONS: Record<string, string> = { eyes: "👀", rocket: "🚀", "-1": "👎" };

/** Tools that answer as the script says: `{ error }` fails the call, anything else is its result. */
function cannedTools(answers: Record<string, unknown>): ToolRunner {
  return {
    call: async (tool) => {
      if (!Object.hasOwn(answers, tool))
        return {
          ok: false,
          code: "TOOL-UNKNOWN",
          message: `the simulation gives no answer for ${tool}`,
        };
      const answer = answers[tool];
      const error =
        answer !== null && typeof answer === "object" && !Array.isArray(answer)
          ? (answer as { error?: unknown }).error
          : undefined;
      return typeof error === "string"
        ? { ok: false, code: "TOOL-FAILED", message: error }
        : { ok: true, result: answer };
    },
  };
}

/**
 * Replay a script against an in-memory GitHub with the real issue controller, and return the
 * thread as it would read at the end.
 */
export async function simulate(
  bundles: Map<string, PlaybookBundle>,
  script: Script,
  problems?: (id: string) => FileReport | undefined,
): Promise<string> {
  let now = Date.parse("2026-01-05T09:00:00Z");
  const clock = () => new Date(now);
  const gh = new MemoryGitHub("playbook-bot[bot]", clock);
  for (const [user, permission] of Object.entries(script.users ?? {}))
    gh.permissions.set(user.toLowerCase(), permission);
  for (const [team, members] of Object.entries(script.teams ?? {}))
    gh.teamMembers.set(
      team.toLowerCase(),
      members.map((m) => m.toLowerCase()),
    );
  if (script.tools) gh.tools = cannedTools(script.tools);
  for (const [step, answer] of Object.entries(script.ai ?? {}))
    gh.aiAnswers[step] = typeof answer === "string" ? answer : JSON.stringify(answer);
  const author = script.issue?.author ?? "octocat";
  const issue = gh.openIssue(
    script.issue?.title ?? "Simulated issue",
    script.issue?.body ?? "",
    author,
  );
  const controller = new IssueController({
    memory: new MemoryCoordination(),
    port: gh,
    catalog: {
      get: (id) => bundles.get(id),
      all: () => [...bundles.values()],
      ...(problems ? { problems } : {}),
    },
    stateKey: repositoryStateKey("simulation", 0, 0),
    clock,
    issue: {
      number: issue.number,
      title: issue.title,
      url: `https://github.test/issues/${issue.number}`,
      author,
      body: issue.body,
    },
    repo: { owner: "octo", name: "repo", default_branch: "main" },
    inProcess: true,
  });
  const named = new Map<string, string>();
  let delivery = 0;
  const awaitedPull = async (): Promise<number | undefined> => {
    for (const r of await controller.runs()) {
      const n = activeFrame(r.run).awaiting?.pullRequest;
      if (n !== undefined) return n;
    }
    return [...gh.pulls.values()].filter((p) => p.state === "open").pop()?.number;
  };
  for (const e of script.events) {
    now += 60_000;
    const id = `delivery-${++delivery}`;
    if ("label" in e) {
      gh.addLabel(issue.number, e.label, e.by ?? author);
      await controller.onLabeled(e.label, { login: e.by ?? author, bot: false }, id);
    } else if ("comment" in e) {
      const c = gh.postAs(issue.number, e.by ?? author, e.comment);
      if (e.id) named.set(e.id, c.id);
      await controller.onComment(c, id);
    } else if ("edit" in e) {
      const cid = named.get(e.edit) ?? e.edit;
      gh.editAs(cid, e.body);
      gh.note(issue.number, `comment ${cid} was edited`);
      await controller.onCommentChanged(cid, id);
    } else if ("delete" in e) {
      const cid = named.get(e.delete) ?? e.delete;
      gh.deleteComment(cid);
      gh.note(issue.number, `comment ${cid} was deleted`);
      await controller.onCommentChanged(cid, id);
    } else if ("merge" in e || "close_pr" in e) {
      const merged = "merge" in e;
      const ref = merged
        ? (e as { merge: boolean | number }).merge
        : (e as { close_pr: boolean | number }).close_pr;
      const number = typeof ref === "number" ? ref : await awaitedPull();
      if (number === undefined)
        throw new ScriptError(`no open pull request to ${merged ? "merge" : "close"}`);
      gh.closePull(number, merged);
      gh.note(
        issue.number,
        `pull request #${number} was ${merged ? "merged" : "closed without merging"}`,
      );
      await controller.onPullRequestClosed(
        number,
        merged,
        id,
        `https://github.test/pull/${number}`,
      );
    } else if ("pull_request" in e) {
      const by = e.by ?? author;
      const branch = `${by}/change-${gh.pulls.size + 1}`;
      gh.pushAs(branch, e.pull_request, e.files ?? { "CHANGE.md": e.pull_request });
      gh.openPullAs(by, branch, e.pull_request, e.body ?? `Fixes #${issue.number}`);
    } else if ("workflow" in e) {
      const d = gh.dispatched[gh.dispatched.length - 1];
      gh.note(issue.number, `workflow ${d?.workflow ?? "?"} finished: ${e.workflow}`);
      await controller.onWorkflowRun(d?.workflow ?? "", d?.runId ?? 0, e.workflow, id);
    } else {
      now += durationMs(e.wait);
      gh.note(issue.number, `${e.wait} later`);
      await controller.onTick(id);
    }
  }
  return transcript(gh, issue.number);
}

function transcript(gh: MemoryGitHub, issue: number): string {
  const i = gh.issues.get(issue);
  const out: string[] = [`#${issue} ${i?.title ?? ""} — opened by @${i?.author ?? "?"}`, ""];
  for (const entry of gh.thread.get(issue) ?? []) {
    if (entry.kind === "label") out.push(`🏷️  @${entry.actor} added the label ${entry.label}`, "");
    else if (entry.kind === "event") out.push(`   · ${entry.text}`, "");
    else {
      const c = gh.comments_.get(entry.id);
      if (!c) {
        out.push(`💬 (comment ${entry.id} deleted)`, "");
        continue;
      }
      const reactions = gh
        .reactionsOf(c.id)
        .map((r) => REACTIONS[r] ?? r)
        .join(" ");
      const edits = gh.editsOf(c.id);
      out.push(
        `💬 @${c.author}${c.byThisApp && edits ? ` (edited ${edits} times)` : ""}${reactions ? `  [${reactions}]` : ""}`,
      );
      // The hidden blocks are machine data: the state is named, the open-run index left out.
      const body = c.body
        .replace(
          new RegExp(`<!-- ${STATE_MARKER} [^ ]+ [^ ]+ -->`),
          `<!-- ${STATE_MARKER} … (signed state) -->`,
        )
        .replace(new RegExp(`\n<!-- ${INDEX_MARKER} [^ ]+ -->`), "")
        .replace(
          new RegExp(`<!-- ${ADHOC_MARKER} [^ ]+ -->`),
          `<!-- ${ADHOC_MARKER} … (sealed log) -->`,
        );
      // The zero-width spaces that keep mentions inert on GitHub are noise in text people copy.
      const shown = body.replace(/\u200b/g, "");
      out.push(...shown.split("\n").map((l) => (l ? `   ${l}` : "")), "");
    }
  }
  const prs = [...gh.pulls.values()].map(
    (p) => `#${p.number} ${p.title} (${p.head} → ${p.base}): ${p.merged ? "merged" : p.state}`,
  );
  if (prs.length) out.push("Pull requests:", ...prs.map((p) => `  ${p}`), "");
  out.push(
    `Issue #${issue}: ${i?.state ?? "?"}${i?.stateReason ? ` (${i.stateReason})` : ""}${i?.labels.length ? `, labels: ${i.labels.join(", ")}` : ""}`,
  );
  return out.join("\n").replace(/\n{3,}/g, "\n\n") + "\n";
}
