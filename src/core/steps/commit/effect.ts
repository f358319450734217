/** A file written by a commit, with its rendered content. */
export type CommitFileContent = { path: string; content: string };

/** One commit on an existing branch; found again by its trailer instead of made twice. */
export type CommitParams = {
  branch: string;
  message: string;
  files?: CommitFileContent[];
  /** Locally: globs of working-tree files to commit as well. */
  paths?: string[];
  push?: boolean;
  pull?: boolean;
};

export type CommitOutputs = {
  sha: string;
  url: string;
  branch: string;
  /** False when an earlier attempt's commit was found. */
  created?: boolean;
};

/** What the effect does, in words (a failure says what was being done). */
export const describeCommitEffect = (p: CommitParams): string => `commit to ${p.branch}`;
