import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { FakeGitHub } from "../../helpers/fake-github.js";
import { SHIP } from "./fixtures.js";
import { CONFIG, INSTALLATION_ID, type Harness, startApp } from "./harness.js";
import { issueTraceCommand, parseIssueRef } from "../../../src/entries/cli/issue-trace-command.js";

let fake: FakeGitHub;
let h: Harness;
let dir: string;

const ISSUE = { owner: "Codertocat", repo: "Hello-World", number: 1 };

type Doc = {
  format?: string;
  runs: { run_id: string; playbook: string }[];
  records: { event: string }[];
};

async function trace(
  env: NodeJS.ProcessEnv,
  opts: Parameters<typeof issueTraceCommand>[1] = { format: "json" },
): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const code = await issueTraceCommand(
    ISSUE,
    opts,
    { out: (t) => void (out += t), err: (t) => void (err += t), cwd: dir },
    { GITHUB_TOKEN: "ghs_test", ...env },
  );
  return { code, out, err };
}

beforeEach(async () => {
  ({ fake, h } = await startApp(
    { ".github/playbooks/ship.yaml": SHIP },
    { alice: "write", carol: "maintain", bob: "read" },
  ));
  fake.openIssue("Ship it", "", "alice");
  dir = mkdtempSync(join(tmpdir(), "issue-trace-"));
});
afterEach(() => {
  fake.uninstall();
  rmSync(dir, { recursive: true, force: true });
});

describe("parseIssueRef", () => {
  it("reads owner/repo#n and nothing else", () => {
    expect(parseIssueRef("Codertocat/Hello-World#12")).toEqual({
      owner: "Codertocat",
      repo: "Hello-World",
      number: 12,
    });
    expect(parseIssueRef("Codertocat/Hello-World")).toBeUndefined();
    expect(parseIssueRef("Codertocat/Hello-World#0")).toBeUndefined();
    expect(parseIssueRef("a b/c#1")).toBeUndefined();
  });
});

describe("playbook-bot trace owner/repo#n, more", () => {
  it("writes OTLP to --output, at the API URL given, with the version named", async () => {
    await h.comment(1, "alice", "/run ship");
    const r = await trace(
      { GITHUB_API_URL: "https://api.github.com", STATE_SECRET: CONFIG.stateSecret },
      { format: "otlp", output: "trace.json", installation: INSTALLATION_ID, version: "9.9.9" },
    );
    expect(r).toEqual({ code: 0, out: "", err: "" });
    const otlp = JSON.parse(readFileSync(join(dir, "trace.json"), "utf8")) as {
      resourceSpans: {
        scopeSpans: { scope: { name: string; version?: string }; spans: unknown[] }[];
      }[];
    };
    const scope = otlp.resourceSpans[0]!.scopeSpans[0]!;
    expect(scope.scope.version).toBe("9.9.9");
    expect(scope.spans.length).toBeGreaterThan(1);
  });

  it("with STATE_SECRET but no installation, checks the seals as the Actions runtime's (installation 0)", async () => {
    await h.comment(1, "alice", "/run ship");
    await h.comment(1, "alice", "/note looked");
    const r = await trace({ STATE_SECRET: CONFIG.stateSecret });
    expect(r.code).toBe(0);
    // The app's blocks were sealed for its installation, not for 0: both are left out.
    expect(r.err).toBe(
      "playbook-bot: 2 block(s) left out: their seal or their form does not check\n",
    );
    const doc = JSON.parse(r.out) as Doc;
    expect(doc.format).toBe("playbook-bot-trace/v1");
    expect(doc.runs).toEqual([]);
  });

  it("reads the newest state of a run once, and the newest ad-hoc block that reads", async () => {
    await h.comment(1, "alice", "/note before the run");
    await h.comment(1, "alice", "/run ship");
    await h.comment(1, "carol", "/approve");
    const status = fake.statusComments(1)[0]!;
    const newest = (await trace({})).out;
    // A second copy of the run's state posted by the app: the run is read once.
    fake.appComment(1, status.body);
    // A damaged ad-hoc block, newer than the real one: left out, the older one read.
    fake.appComment(1, "<!-- playbook-bot:adhoc damaged -->");
    const r = await trace({});
    expect(r.code).toBe(0);
    expect(r.err).toContain("read without checking their seals");
    expect(r.err).toMatch(/block\(s\) left out/);
    const doc = JSON.parse(r.out) as Doc;
    expect(doc.runs.map((x) => x.playbook)).toEqual(["(work by hand)", "ship"]);
    expect(r.out).toBe(newest);
    expect(doc.records.map((x) => x.event)).toContain("/note");
  });

  it("stops reading a thread after 3,000 comments", async () => {
    fake.seedComments(1, 3_000);
    await h.comment(1, "alice", "/run ship");
    expect(fake.statusComments(1)).toHaveLength(1);
    const r = await trace({});
    expect(r.code).toBe(0);
    // The run's status comment is the 3,001st: it is not read.
    expect((JSON.parse(r.out) as Doc).runs).toEqual([]);
  });
});
