/** A comment on the run's issue. */
export type CommentParams = {
  body: string;
};

export type CommentOutputs = {
  /** The comment's id (locally: the effect key). */
  id: string;
  url: string;
};
