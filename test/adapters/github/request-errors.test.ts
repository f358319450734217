import { describe, expect, it } from "vitest";
import {
  GitHubRequestTimeout,
  GitHubUnreachable,
} from "../../../src/adapters/github/octokit-pacing.js";
import {
  isNetworkError,
  isServerError,
  outcomeUnknown,
  requestFailure,
} from "../../../src/runtime/request-errors.js";
import { LockTimeoutError } from "../../../src/runtime/coordination.js";

/** One classification of a failed GitHub request, read by the retry layer, creates-once and the timer. */

const answered = (status: number) =>
  Object.assign(new Error(`HTTP ${status}`), { status, response: { status, headers: {} } });
/** What @octokit/request makes of an error fetch threw: a 500 without a response. */
const noAnswer = () => Object.assign(new Error("fetch failed"), { status: 500 });
/** A connection refused, the way Node's fetch reports it: the code is on the cause. */
function refused(): Error {
  const cause = Object.assign(new Error("connect ECONNREFUSED 140.82.112.6:443"), {
    code: "ECONNREFUSED",
  });
  return new TypeError("fetch failed", { cause });
}

describe("requestFailure", () => {
  it("tells GitHub's refusal, GitHub's 5xx, a timeout, an unreachable GitHub and the rest apart", () => {
    expect(requestFailure(answered(404))).toBe("refused");
    expect(requestFailure(answered(422))).toBe("refused");
    expect(requestFailure(answered(502))).toBe("server-error");
    expect(requestFailure(new GitHubRequestTimeout("no answer in 30 s"))).toBe("timeout");
    expect(
      requestFailure(new GitHubUnreachable("GitHub cannot be reached", refused(), "ECONNREFUSED")),
    ).toBe("unreachable");
    expect(requestFailure(refused())).toBe("unreachable");
    expect(requestFailure(noAnswer())).toBe("unreachable");
    expect(requestFailure(new Error("socket hang up"))).toBe("unknown");
    expect(requestFailure(new LockTimeoutError("issue:o/r#1", 1000))).toBe("unknown");
    expect(requestFailure(undefined)).toBe("unknown");
  });
});

describe("the questions the callers ask", () => {
  it("isServerError: only a 5xx GitHub answered (the retry layer re-sends those)", () => {
    expect(isServerError(answered(502))).toBe(true);
    expect(isServerError(answered(503))).toBe(true);
    expect(isServerError(noAnswer())).toBe(false);
    expect(isServerError(new GitHubRequestTimeout("slow"))).toBe(false);
    expect(isServerError(answered(403))).toBe(false);
  });

  it("outcomeUnknown: anything but GitHub's refusal may have made something (creates-once looks first)", () => {
    expect(outcomeUnknown(new Error("socket hang up"))).toBe(true);
    expect(outcomeUnknown(answered(500))).toBe(true);
    expect(outcomeUnknown(Object.assign(new Error("x"), { status: 504 }))).toBe(true);
    expect(outcomeUnknown(new GitHubRequestTimeout("slow"))).toBe(true);
    expect(outcomeUnknown(refused())).toBe(true);
    expect(outcomeUnknown(answered(404))).toBe(false);
    expect(outcomeUnknown(answered(422))).toBe(false);
  });

  it("isNetworkError: a connection that failed, a timeout and GitHub's 5xx, not the work's own failures", () => {
    expect(isNetworkError(refused())).toBe(true);
    expect(isNetworkError(Object.assign(new Error("x"), { code: "ENOTFOUND" }))).toBe(true);
    expect(isNetworkError(Object.assign(new Error("x"), { status: 502 }))).toBe(true);
    expect(isNetworkError(Object.assign(new Error("slow"), { status: 504, timeout: true }))).toBe(
      true,
    );
    expect(isNetworkError(answered(503))).toBe(true);
    expect(isNetworkError(new LockTimeoutError("issue:o/r#1", 1000))).toBe(false);
    expect(isNetworkError(Object.assign(new Error("Not Found"), { status: 404 }))).toBe(false);
    expect(isNetworkError(new Error("boom"))).toBe(false);
    expect(isNetworkError(undefined)).toBe(false);
  });
});
