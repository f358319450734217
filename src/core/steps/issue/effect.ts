/** A new issue; a hidden marker with the effect key lets a retry find it. */
export type IssueParams = {
  title: string;
  body?: string;
  labels?: string[];
  assignees?: string[];
};

export type IssueOutputs = {
  number: number;
  url: string;
  /** False when an earlier attempt's issue was found. */
  created?: boolean;
};

/** What the effect does, in words (a failure says what was being done). */
export const describeIssueEffect = (): string => "open an issue";
