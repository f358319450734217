/**
 * The in-memory GitHub (src/adapters/memory/github-api.ts) for tests: `install()` answers every
 * request to api.github.com through nock interceptors (persistent), `uninstall()` removes them,
 * and `hang` can leave a request without an answer. Plus helpers that count requests.
 */
import nock from "nock";
import {
  MemoryGitHubApi,
  safeJson,
  type ApiComment,
  type ApiCommit,
  type ApiIssue,
  type ApiIssueEvent,
  type ApiPull,
  type ApiPullFile,
  type ApiUser,
  type ApiWorkflowRun,
  type MemoryGitHubApiOptions,
  type RecordedRequest,
  type Reply,
} from "../../src/adapters/memory/github-api.js";

export {
  API,
  type Fault,
  type PendingCommentEvent,
  type RecordedRequest,
} from "../../src/adapters/memory/github-api.js";
import { API, type Fault } from "../../src/adapters/memory/github-api.js";

export type FakeUser = ApiUser;
export type FakeComment = ApiComment;
export type FakeIssue = ApiIssue;
export type FakeIssueEvent = ApiIssueEvent;
export type FakePull = ApiPull;
export type FakePullFile = ApiPullFile;
export type FakeCommit = ApiCommit;
export type FakeWorkflowRun = ApiWorkflowRun;
export type FakeGitHubOptions = MemoryGitHubApiOptions;

/** The in-memory GitHub behind nock. */
export class FakeGitHub extends MemoryGitHubApi {
  /**
   * Consulted before every request: true leaves the request without an answer (a hung
   * connection); "applied" does the same after the request took effect (GitHub made the comment,
   * its answer never came).
   */
  hang: ((req: { method: string; path: string }) => boolean | "applied") | undefined;
  private scopes: nock.Scope[] = [];

  install(): this {
    const scope = nock(API).persist();
    const answer = (
      method: string,
      uri: string,
      body: unknown,
      ifNoneMatch: unknown,
    ): Reply | Promise<never> => {
      const hung = this.hang?.({ method, path: decodeURIComponent(uri) });
      if (hung === "applied") this.handle(method, uri, body);
      if (hung) return new Promise<never>(() => undefined); // GitHub never answers
      return typeof ifNoneMatch === "string"
        ? this.conditional(method, uri, body, ifNoneMatch)
        : this.handle(method, uri, body);
    };
    for (const method of ["get", "post", "patch", "put", "delete"] as const)
      // A plain function: nock passes the request (and its headers) as `this`.
      scope[method](/.*/).reply(function (
        this: { req?: { headers?: Record<string, string | string[] | undefined> } },
        uri: string,
        body: unknown,
      ) {
        return answer(
          method.toUpperCase(),
          uri,
          body,
          this.req?.headers?.["if-none-match"],
        ) as never;
      } as never);
    this.scopes.push(scope);
    return this;
  }

  uninstall(): void {
    for (const s of this.scopes) s.persist(false);
    nock.cleanAll();
    this.scopes = [];
  }
}

/**
 * A fault for the first request `matches` accepts: the request takes effect, and its answer is a
 * 502 (GitHub made the comment; a proxy lost the answer).
 */
export function answerLost(
  matches: (req: { method: string; path: string; body: unknown }) => boolean,
): Fault {
  let done = false;
  return (req) => {
    if (done || !matches(req)) return undefined;
    done = true;
    return { status: 502, body: { message: "Bad Gateway" }, applied: true };
  };
}

/** "GET /repos/o/r/issues/1/comments" lines, with query strings dropped: easy to assert on. */
export function describeRequests(requests: readonly RecordedRequest[]): string[] {
  // A conditional request answered 304 is marked: GitHub does not count it against the rate limit.
  return requests.map(
    (r) => `${r.method} ${r.path.split("?")[0]}${r.status === 304 ? " (304)" : ""}`,
  );
}

/**
 * Requests made while `work` runs (one event, usually), counted. Works for any source of
 * recorded requests with a `requests` array (the fake, or `countNockRequests()` for plain nock).
 */
export async function requestsDuring(
  source: { requests: readonly RecordedRequest[] },
  work: () => Promise<unknown>,
): Promise<{ count: number; requests: string[] }> {
  const mark = source.requests.length;
  await work();
  const requests = describeRequests(source.requests.slice(mark));
  return { count: requests.length, requests };
}

/**
 * Records every request the given plain nock scopes intercept (method and path), so tests with
 * hand-written scopes can count requests per event with `requestsDuring` too.
 */
export function recordScopes(...scopes: nock.Scope[]): { requests: RecordedRequest[] } {
  const requests: RecordedRequest[] = [];
  for (const scope of scopes)
    scope.on("request", (req: { method?: string; path?: string }, _i: unknown, body: unknown) => {
      requests.push({
        method: String(req.method ?? "?").toUpperCase(),
        path: decodeURIComponent(String(req.path ?? "")),
        body: typeof body === "string" && body !== "" ? safeJson(body) : body,
        status: 0,
      });
    });
  return { requests };
}
