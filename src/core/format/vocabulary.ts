/** Context variables a template or expression may name, besides inputs, steps and findings. */
export const CONTEXT_VARIABLES: Record<string, readonly string[]> = {
  issue: ["number", "title", "url", "author"],
  repo: ["owner", "name", "full_name", "default_branch"],
  run: ["id", "url", "initiator", "playbook", "started_at", "date"],
  alert: [
    "title",
    "summary",
    "severity",
    "status",
    "source",
    "fingerprint",
    "url",
    "labels",
    "annotations",
  ],
};

/**
 * What a local run (the CLI) has of each context variable, and how to give it the rest: runs
 * started on GitHub have all of them, a local run only what is said here. A playbook that needs
 * more is refused before any of its steps runs.
 */
export const LOCAL_CONTEXT: Record<keyof typeof CONTEXT_VARIABLES, string> = {
  issue:
    "a local run has no GitHub issue unless it is given one: pass --issue <n> for issue.number (and issue.url where origin is a GitHub repository); issue.title and issue.author exist only in runs started on GitHub",
  repo: "a local run has repo.name and repo.default_branch (the checked-out branch, when HEAD is on one); repo.owner and repo.full_name need an origin on GitHub",
  run: "a local run has run.id, run.initiator, run.playbook, run.started_at and run.date; run.url needs --issue <n> where origin is a GitHub repository",
  alert:
    "a local run has no alert unless it is given one: pass --alert <file> (YAML or JSON with the fields of a golden case's alert: title, severity, labels, …)",
};

/** Alert fields that hold maps, so `alert.labels.<name>` is allowed. */
export const CONTEXT_MAPS = new Set(["alert.labels", "alert.annotations"]);

/**
 * Names a `for_each` step's templates have besides the run's: the item and its position (from 0).
 * They resolve only inside the step that has `for_each`.
 */
export const ITEM_VARIABLES = ["item", "item_index"] as const;

/** Outputs every checkpoint has, besides the fields of its response schema. */
export const CHECKPOINT_OUTPUTS = ["approved_by", "note"];
