/** Closes the run's issue, or the issue numbered `issue`, with an optional comment first. */
export type CloseParams = {
  /** Default `completed`. */
  reason?: "completed" | "not_planned";
  comment?: string;
  issue?: string;
};

export type CloseOutputs = {
  state: "closed";
};

/** What the effect does, in words (a failure says what was being done). */
export const describeCloseEffect = (): string => "close the issue";
