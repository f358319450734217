/** A pull request from `head` (default base: the default branch), or the app's open one for it. */
export type PullRequestParams = {
  head: string;
  base?: string;
  title: string;
  body?: string;
  draft?: boolean;
  labels?: string[];
  reviewers?: string[];
  team_reviewers?: string[];
};

/**
 * What opening it returns. The step's `merge_sha` (and `merged: true`) come later, with the merge
 * event the step waits for.
 */
export type PullRequestOutputs = {
  number: number;
  url: string;
  head: string;
  merged: boolean;
  /** False when the app's open pull request for the head was found. */
  created?: boolean;
};

/** What the effect does, in words (a failure says what was being done). */
export const describePullRequestEffect = (p: PullRequestParams): string =>
  `open a pull request from ${p.head}`;
