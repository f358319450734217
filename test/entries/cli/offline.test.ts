import nock from "nock";
import { afterEach, describe, expect, it } from "vitest";
import { issueTraceCommand } from "../../../src/entries/cli/issue-trace-command.js";

// A person's command on a machine that cannot reach GitHub: the cause is named at once, and
// nothing is sent again as if GitHub had answered with a server error.
afterEach(() => nock.cleanAll());

async function traceOffline(error: Error & { code: string }) {
  let requests = 0;
  nock("https://api.github.com")
    .get("/repos/octo/repo")
    .times(5)
    .replyWithError(error)
    .on("request", () => (requests += 1));
  let err = "";
  const code = await issueTraceCommand(
    { owner: "octo", repo: "repo", number: 1 },
    { format: "json" },
    { out: () => undefined, err: (t) => void (err += t), cwd: process.cwd() },
    { GITHUB_TOKEN: "ghs_test" },
  );
  return { code, err, requests };
}

describe("a command that cannot reach GitHub", () => {
  it("names a DNS failure as it is, once, without calling it GitHub's answer", async () => {
    const dns = Object.assign(new Error("getaddrinfo ENOTFOUND api.github.com"), {
      code: "ENOTFOUND",
    });
    const r = await traceOffline(dns);
    expect(r.code).toBe(1);
    expect(r.err).toBe(
      "playbook-bot: cannot read octo/repo#1: GitHub could not be reached for GET https://api.github.com/repos/octo/repo: getaddrinfo ENOTFOUND api.github.com\n",
    );
    expect(r.requests).toBe(1);
  });

  it("names a refused connection the same way", async () => {
    const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:443"), {
      code: "ECONNREFUSED",
    });
    const r = await traceOffline(refused);
    expect(r.err).toContain("ECONNREFUSED");
    expect(r.err).not.toContain("answered");
    expect(r.requests).toBe(1);
  });
});
