/** A comment on the run's issue, on another issue or pull request, or a review-thread reply. */
export type CommentParams = {
  body: string;
  /** Another issue or pull request of the repository, by number. */
  issue?: string;
  /** A review comment's id on the pull request `issue`: the comment is a reply to it. */
  reply_to?: string;
};

export type CommentOutputs = {
  /** The comment's id (locally: the effect key). */
  id: string;
  url: string;
};

/** What the effect does, in words (a failure says what was being done). */
export const describeCommentEffect = (p: CommentParams): string =>
  p.reply_to
    ? `reply to review comment ${p.reply_to}`
    : p.issue
      ? `comment on #${p.issue}`
      : "comment";
