/**
 * Every failure has one shape — code, message, guidance, optional cause — and its code comes from
 * this catalogue. The same object goes into run state, logs, CLI output and issue comments, and
 * `on_error` policies are looked up by its code.
 */
export interface PlaybookError {
  code: ErrorCode;
  message: string;
  guidance: string;
  cause?: string;
}

export const ERROR_CATALOGUE = {
  "PB-INPUT-INVALID": "Fix the inputs and start the run again; the message lists every problem.",
  "PB-TEMPLATE-UNDEFINED":
    "The template names a value the run does not have; check the playbook's references.",
  "PB-TEMPLATE-UNSAFE":
    "A rendered value is not safe for its use (branch name, path or label); change the input or the template.",
  "PB-PLAYBOOK-CHANGED":
    "The run is pinned to the playbook it started with; finish or cancel it, then start a new run.",
  "PB-PLAYBOOK-UNKNOWN": "Add the playbook, or fix the id in the delegate or handoff step.",
  "PB-PLAYBOOK-INVALID":
    "The playbook's file does not load: fix it (`playbook-bot validate <file>` lists every finding), then /retry. The other playbooks of the set still run.",
  "PB-MAX-STEPS":
    "The run took more steps than limits.max_steps allows; check for a loop or raise the limit.",
  "PB-MAX-DEPTH":
    "Sub-playbooks nest deeper than the limit; flatten the delegation or raise limits.max_depth.",
  "PB-NO-BRANCH": "No branch applies and there is no default; add a default branch.",
  "PB-OUTPUT-MISSING":
    "A declared output has no value at the end; make sure the step that produces it runs.",
  "PB-TIMEOUT": "Nobody answered in time; start a new run or use /retry.",
  "PB-REJECTED": "An approver rejected the step; /retry to ask again, or start a new run.",
  "PB-CANCELLED": "The run was cancelled; start a new one if needed.",
  "PB-PR-CLOSED": "The pull request was closed without merging; reopen and merge it, then /retry.",
  "PB-WORKFLOW-FAILED": "The dispatched workflow did not succeed; check its logs, then /retry.",
  "PB-AI-UNAVAILABLE": "No AI adapter is configured; configure one or use the mock adapter.",
  "PB-AI-FAILED":
    "The AI provider failed or refused the request; the message says why. /retry once the cause is fixed.",
  "PB-AI-TOOL-REFUSED":
    "A read-only ai step may offer only tools that read; remove the tool, or set scope: write (approved first).",
  "PB-AI-OUTPUT-MISSING":
    "The AI step did not produce the files it was expected to; check the prompt.",
  "PB-STATE-EDITED":
    "Someone other than the app edited the run's status comment, so its state is not trusted; start the run again with /run.",
  "PB-EFFECT-FAILED": "An effect failed; the cause says why. /retry once the cause is fixed.",
  "PB-BRANCH-FAILED":
    "A branch of a parallel step failed and the others were cancelled; fix the branch's cause, then /retry.",
  "PB-JOIN-UNMET":
    "Too few branches of a parallel step completed for its join; fix the failed branches, then /retry.",
  "PB-FOR-EACH-INVALID":
    "for_each must name a list (a list input, an output list or a finding) of at most limits.max_items items; fix the template or raise the limit.",
  "PB-NEEDS-UNMET":
    "Some steps of a needs: list can never start (a need names no step of the list, or needs form a cycle); fix the needs.",
  "PB-NOT-IN-BRANCH":
    "This step cannot run beside others (inside a branch, a for_each or a needs: list); move it after the parallel part.",
  "PB-SCRIPT-REFUSED":
    "This host does not run scripts; run the playbook with the CLI (--allow-scripts) or the Actions runtime.",
  "PB-SCRIPT-FAILED": "The script exited with an error; the message ends with its last lines.",
  "PB-TOOL-BUDGET":
    "The run made as many tool calls as limits.max_tool_calls allows; raise the limit or call fewer tools.",
  "PB-TOOL-FAILED": "A tool call failed; the cause says why. /retry once the cause is fixed.",
  "PB-CONTRACT-INPUT":
    "The data entering the step does not match its input_schema; the message names the field.",
  "PB-CONTRACT-OUTPUT":
    "The step's outputs do not match its output_schema; the message names the field.",
  "PB-EVIDENCE-MISSING":
    "A conclusion was reached without the findings it must rest on (require_evidence); record them, then /retry.",
  "PB-VERIFY-FAILED": "The step's registered check refused its result; the message says why.",
  "PB-PERMISSION":
    "The person the run acts for may not run the playbook it would enter; someone with that access starts it.",
  "PB-REQUIREMENT-MISSING":
    "The playbook requires a secret or tool this host does not have; configure it, then start the run again.",
  "GH-RATE-LIMITED": "GitHub asked us to slow down; the run resumes with /retry or the next event.",
  "GH-PERMISSION":
    "The app lacks a permission for this action; check the installation's permissions.",
  "GH-NOT-FOUND": "A repository object is missing; check names and that the app can see them.",
  "GH-CONFLICT":
    "The object already exists in another state (e.g. a branch at another commit); resolve it, then /retry.",
  "GH-VALIDATION": "GitHub refused the request's content; the cause says which field.",
  "GH-TIMEOUT": "GitHub did not answer in time; /retry once it does (nothing was done twice).",
  "GH-ERROR": "GitHub answered with an error; /retry later.",
  "GIT-FAILED": "A local git command failed; the cause holds its output.",
} as const;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

export function playbookError(code: ErrorCode, message: string, cause?: string): PlaybookError {
  const e: PlaybookError = { code, message, guidance: ERROR_CATALOGUE[code] };
  if (cause !== undefined) e.cause = cause.length > 500 ? `${cause.slice(0, 497)}...` : cause;
  return e;
}

export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(ERROR_CATALOGUE, code);
}
