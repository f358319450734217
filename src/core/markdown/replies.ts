/**
 * The bot's own comments on a thread (refusals, notices, `/status`, messages for people), built as
 * trees: values from people, alerts and playbooks only ever land in text and code.
 */
import type { Message } from "../engine/events.js";
import {
  anchorLink,
  code,
  codeBlock,
  lines,
  list,
  mention,
  paragraph,
  quote,
  renderMarkdown,
  strong,
  teamMention,
  text,
  type Inline,
  type InlineLike,
} from "./comment.js";

/**
 * A short app-written string with `` `code` `` and `**bold**` marks (a refusal reason) as inline
 * nodes. Everything else is text, so whatever a value inside it holds, the result is only text,
 * code and bold.
 */
export function spans(value: string): Inline[] {
  const out: Inline[] = [];
  const re = /`([^`\n]+)`|\*\*([^*\n]+)\*\*/g;
  let at = 0;
  for (let m = re.exec(value); m; m = re.exec(value)) {
    if (m.index > at) out.push(text(value.slice(at, m.index)));
    if (m[1] !== undefined) out.push(code(m[1]));
    else out.push(strong(m[2] as string));
    at = m.index + m[0].length;
  }
  if (at < value.length) out.push(text(value.slice(at)));
  return out;
}

function reasonInlines(reason: string | readonly InlineLike[]): InlineLike[] {
  return typeof reason === "string" ? spans(reason) : [...reason];
}

/** `> <command line>` then `👎 <reason>`: the answer to a refused command. */
export function refusalReply(commandLine: string, reason: string | readonly InlineLike[]): string {
  return renderMarkdown(quote(paragraph(commandLine)), paragraph("👎 ", ...reasonInlines(reason)));
}

/** Why `/word` was refused: it is not a command, and what was probably meant. */
export function unknownCommandReason(word: string, suggestion: string): Inline[] {
  return [
    code(`/${word}`),
    text(" is not a command — did you mean "),
    code(`/${suggestion}`),
    text("? ("),
    code("/help"),
    text(" lists them)"),
  ];
}

/** GitHub refuses a comment longer than 65,536 characters; a reply stays well under that. */
export const MAX_REPLY_CHARS = 60_000;

/**
 * A reply as it can be posted: one that echoes so much of a comment (a 60,000-character `/run`
 * line quoted, each of its thousands of unknown inputs named) that GitHub would refuse it is
 * replaced by a short one, so the command is answered and the events go on.
 */
export function fittedReply(body: string): string {
  if (body.length <= MAX_REPLY_CHARS) return body;
  return renderMarkdown(
    paragraph(
      `👎 the answer to this comment would be ${body.length} characters, more than GitHub takes in a comment: write the command shorter`,
    ),
  );
}

/** A playbook that did not start because its inputs are invalid, with each problem. */
export function invalidInputsNotice(playbook: string, problems: readonly string[]): string {
  return renderMarkdown(
    paragraph(strong(playbook), " did not start: its inputs are invalid."),
    list(problems.map((p) => p)),
  );
}

/** A playbook that did not start: what it requires that this host does not have. */
export function requirementsNotice(playbook: string, unmet: readonly string[]): string {
  return renderMarkdown(
    paragraph(strong(playbook), " did not start (PB-REQUIREMENT-MISSING):"),
    list(unmet.map((u) => u)),
  );
}

/** A playbook that cannot run: its file and the validator's report in a text block. */
export function invalidPlaybookNotice(playbook: string, file: string, report: string): string {
  return renderMarkdown(
    paragraph("Playbook ", strong(playbook), " cannot run: ", code(file), " is invalid."),
    codeBlock(report.trimEnd(), "text"),
  );
}

/** The anchor of a comment in its thread, as GitHub names it; ids are numbers. */
function commentAnchor(commentId: string | number): string {
  const id = String(commentId);
  return /^[0-9]{1,20}$/.test(id) ? `issuecomment-${id}` : "";
}

/**
 * A status comment whose state block does not verify: that run is frozen. The body always holds
 * `](#issuecomment-<id>) is frozen`, so an earlier notice for the same comment can be found.
 */
export function frozenNotice(commentId: string | number, detail: string): string {
  return renderMarkdown(
    lines(
      [
        "⚠️ The run in ",
        anchorLink(commentAnchor(commentId), "this status comment"),
        " is frozen: ",
        detail,
        ".",
      ],
      [
        "Its state cannot be trusted, so nothing more happens in it. Start a new run with ",
        code("/run <playbook>"),
        ".",
      ],
    ),
  );
}

export interface EditedNotice {
  editor: string;
  commentId: string | number;
  runId: string;
  playbook: string;
  /** Whether the run had finished (its comment is put back) or was open (it is frozen). */
  finished: boolean;
  /** The `/run …` line that starts it again (for an open run). */
  restart: string;
}

/** Someone other than this app edited a status comment. */
export function statusEditedNotice(n: EditedNotice): string {
  const head: InlineLike[] = [
    "⚠️ ",
    text(`@${n.editor}`),
    " edited ",
    anchorLink(commentAnchor(n.commentId), "the status comment"),
  ];
  return renderMarkdown(
    n.finished
      ? paragraph(
          ...head,
          " of the finished run ",
          code(n.runId),
          " (",
          strong(n.playbook),
          "); it has been put back as this app wrote it. A finished run does not start again.",
        )
      : paragraph(
          ...head,
          " of run ",
          code(n.runId),
          " (",
          strong(n.playbook),
          "). Only this app writes run state, so the run is frozen and nothing more happens in it (",
          code("PB-STATE-EDITED"),
          "). To go on, start it again: ",
          code(n.restart),
          ".",
        ),
  );
}

export interface DeletedNotice {
  by: string;
  runId: string;
  playbook: string;
  /** The step the run stopped at. */
  at: string;
  restart: string;
}

/** A status comment (and the state it held) was deleted. */
export function statusDeletedNotice(n: DeletedNotice): string {
  return renderMarkdown(
    paragraph(
      "🗑️ ",
      text(`@${n.by}`),
      " deleted the status comment of run ",
      code(n.runId),
      " (",
      strong(n.playbook),
      "), which held its state, so the run has stopped where it was (at ",
      code(n.at),
      "). To start it again: ",
      code(n.restart),
      ".",
    ),
  );
}

/** A label that would start a playbook, added by someone without the access it needs. */
export function labelRefusedNotice(
  label: string,
  playbook: string,
  by: string,
  permission: string,
): string {
  return renderMarkdown(
    paragraph(
      "Label ",
      code(label),
      " did not start ",
      strong(playbook),
      ": ",
      text(`@${by}`),
      ` needs ${permission} access or more to start it.`,
    ),
  );
}

/** The status comment's first body, before the run's state is written into it. */
export function startingNotice(playbook: string, runId: string): string {
  return renderMarkdown(paragraph("⏳ Starting ", strong(playbook), " (run ", code(runId), ")…"));
}

export interface RunListEntry {
  runId: string;
  /** The status comment that holds the run. */
  commentId: string | number;
  playbook: string;
  status: string;
  /** The current step of an unfinished run. */
  at?: string;
}

/** `/status`: each run on the issue, linked to its status comment. */
export function runList(runs: readonly RunListEntry[]): string {
  if (runs.length === 0)
    return renderMarkdown(
      paragraph("No playbook has run on this issue. ", code("/help"), " lists the commands."),
    );
  return renderMarkdown(
    list(
      runs.map((r) => [
        anchorLink(commentAnchor(r.commentId), "run ", code(r.runId)),
        " of ",
        strong(r.playbook),
        ": ",
        r.status,
        r.at !== undefined ? [" at ", code(r.at)] : [],
      ]),
    ),
  );
}

/**
 * `cc @a @org/team`: mentions meant to notify, for logins and teams a playbook names as
 * approvers. A name that is not a valid login (or `org/team`) is shown inert.
 */
export function ccLine(logins: readonly string[], teams: readonly string[] = []): string {
  const who: InlineLike[] = [];
  for (const l of logins) who.push(" ", mention(l.replace(/^@/, "")));
  for (const t of teams) who.push(" ", teamMention(t.replace(/^@/, "")));
  return renderMarkdown(paragraph("cc", ...who));
}

/** A message from the engine as a comment: its text, then who it is for. */
export function messageComment(m: Pick<Message, "text" | "to">): string {
  return m.to?.length ? `${m.text.trimEnd()}\n\n${ccLine(m.to)}` : m.text;
}
