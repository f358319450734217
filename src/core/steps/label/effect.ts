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

/** What the effect does, in words (a failure says what was being done). */
export const describeLabelEffect = (): string => "change labels";
