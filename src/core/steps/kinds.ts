/**
 * Every step kind, one line each: the name of its folder under src/core/steps/, which is also the
 * step's `type`, in the order of the schema's `type` enum. A new kind is its folder and a line
 * here; `npm run kinds:write` then writes the lists the rest of the code reads (./generated/), and
 * a test fails while they are not what this list makes.
 */
export const STEP_KIND_FOLDERS = [
  "ai",
  "branch",
  "checkpoint",
  "close",
  "comment",
  "commit",
  "decide",
  "dispatch",
  "end",
  "investigate",
  "issue",
  "label",
  "parallel",
  "playbook",
  "pull_request",
  "script",
] as const;
