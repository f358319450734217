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
