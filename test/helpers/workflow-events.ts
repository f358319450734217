import { BRANCH, example } from "../entries/app/harness.js";
import type { FakeGitHub } from "./fake-github.js";

/**
 * The events a workflow is started with, as GitHub writes them for the runner: real
 * @octokit/webhooks-examples payloads without an installation, moved onto the fake's issues,
 * comments and pull requests. `fakeOf` is read at each call (the fake is made in `beforeAll`).
 */
export function workflowEvents(fakeOf: () => FakeGitHub) {
  const repository = () => ({ ...example("issues", "labeled").repository, default_branch: BRANCH });
  const issue = (n: number) => ({
    ...example("issues", "opened").issue,
    ...fakeOf().restIssue(fakeOf().issues.get(n)!),
  });
  /** An example payload of the event, as a workflow gets it: no installation. */
  const payload = (name: string, action: string) => {
    const p = example(name, action);
    delete p.installation;
    return p;
  };
  return {
    /** The repository as an event names it. */
    repository,
    /** `issues.labeled` for a label `by` added to an issue. */
    labeled(n: number, label: string, by: string): Record<string, unknown> {
      const p = payload("issues", "labeled");
      return {
        ...p,
        issue: issue(n),
        label: { ...p.label, name: label },
        sender: fakeOf().user(by),
        repository: repository(),
      };
    },
    /** `issue_comment.created` for a comment already on its issue. */
    commented(commentId: number): Record<string, unknown> {
      const p = payload("issue_comment", "created");
      const c = fakeOf().comments.get(commentId)!;
      return {
        ...p,
        issue: issue(c.issue),
        comment: { ...p.comment, ...fakeOf().restComment(c) },
        sender: c.user,
        repository: repository(),
      };
    },
    /** `issues.opened`, by `by`. */
    opened(n: number, by: string): Record<string, unknown> {
      const p = payload("issues", "opened");
      return { ...p, issue: issue(n), sender: fakeOf().user(by), repository: repository() };
    },
    /** `pull_request.closed` for a pull request on the fake (merged or not, as the fake says). */
    pullClosed(pull: number): Record<string, unknown> {
      const p = payload("pull_request", "closed");
      return {
        ...p,
        number: pull,
        pull_request: { ...p.pull_request, ...fakeOf().restPull(fakeOf().pulls.get(pull)!) },
        repository: repository(),
      };
    },
  };
}
