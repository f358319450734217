/** Labels added to and removed from the run's issue, or the issue numbered `issue`. */
export type LabelParams = {
  add?: string[];
  remove?: string[];
  issue?: string;
};

export type LabelOutputs = {
  /** The labels the issue has afterwards. */
  labels: string[];
};
