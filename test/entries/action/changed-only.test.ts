import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { FakeGitHub, type FakePull, type FakePullFile } from "../../helpers/fake-github.js";
import { workflowCommands } from "../../helpers/workflow-commands.js";

/**
 * `changed-only` as a runner runs it: the bundled Action in a child process, in a checkout made
 * as actions/checkout makes it by default (one commit deep), for a real `pull_request` payload,
 * with the GitHub API served on loopback.
 */
const BUNDLE = resolve(__dirname, "../../../dist/action/index.js");
const TOKEN = "ghs_workflowtoken";

type Definition = { name: string; examples: Record<string, unknown>[] };
const examples = createRequire(import.meta.url)(
  "@octokit/webhooks-examples/api.github.com/index.json",
) as Definition[];

const broken = (id: string) => `apiVersion: playbook-bot/v1
id: ${id}
steps:
  - id: first
    type: comit
    description: A typo.
`;

const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], {
    cwd,
    encoding: "utf8",
  }).trim();

function write(dir: string, rel: string, text: string): void {
  mkdirSync(dirname(join(dir, rel)), { recursive: true });
  writeFileSync(join(dir, rel), text);
}

let fake: FakeGitHub;
let api: { url: string; close: () => Promise<void> };
let dir: string;
let origin: string;
let base: string;
let head: string;

beforeAll(async () => {
  fake = new FakeGitHub({ owner: "octo", repo: "playbooks", defaultBranch: "main", appId: 1 });
  api = await fake.serve();
  dir = mkdtempSync(join(tmpdir(), "pb-changed-"));
  // The repository: a base commit, and the pull request's head on top of it.
  origin = join(dir, "origin");
  mkdirSync(origin);
  git(origin, "init", "-q", "-b", "main");
  write(origin, "playbooks/old.yaml", broken("old"));
  write(origin, "playbooks/before-rename.yaml", broken("moved"));
  write(origin, "playbooks/gone.yaml", broken("gone"));
  git(origin, "add", ".");
  git(origin, "commit", "-qm", "base");
  base = git(origin, "rev-parse", "HEAD");
  write(origin, "playbooks/new.yaml", broken("new"));
  git(origin, "mv", "playbooks/before-rename.yaml", "playbooks/moved.yaml");
  git(origin, "rm", "-q", "playbooks/gone.yaml");
  git(origin, "add", ".");
  git(origin, "commit", "-qm", "head");
  head = git(origin, "rev-parse", "HEAD");
});
afterAll(async () => {
  await api.close();
  rmSync(dir, { recursive: true, force: true });
});

let pr: FakePull;
let runs = 0;
beforeEach(() => {
  pr = fake.openPullAs("someone", "feature", "Playbooks", "");
  pr.files = [
    { filename: "playbooks/new.yaml", status: "added" },
    {
      filename: "playbooks/moved.yaml",
      status: "renamed",
      previous_filename: "playbooks/before-rename.yaml",
    },
    { filename: "playbooks/gone.yaml", status: "removed" },
  ];
});
afterEach(() => {
  fake.fault = undefined;
});

/** A checkout as actions/checkout makes it by default: the head commit only. */
function checkout(depth: "shallow" | "full"): string {
  const target = join(dir, `ws-${++runs}`);
  const args = depth === "shallow" ? ["--depth", "1"] : [];
  git(dir, "clone", "-q", ...args, `file://${origin}`, target);
  expect(git(target, "rev-parse", "--is-shallow-repository")).toBe(
    depth === "shallow" ? "true" : "false",
  );
  return target;
}

/** The webhooks-examples `pull_request.opened` payload, for this pull request and repository. */
function event(): string {
  const def = examples.find((d) => d.name === "pull_request");
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const payload: Record<string, any> = structuredClone(
    def?.examples.find((e) => e.action === "opened") as Record<string, unknown>,
  );
  payload.number = pr.number;
  payload.pull_request.number = pr.number;
  payload.pull_request.base.sha = base;
  payload.pull_request.head.sha = head;
  payload.pull_request.changed_files = pr.files?.length;
  payload.repository.full_name = `${fake.owner}/${fake.name}`;
  const path = join(dir, `event-${runs}.json`);
  writeFileSync(path, JSON.stringify(payload));
  return path;
}

function runAction(
  workspace: string,
  inputs: Record<string, string> = {},
): Promise<{ code: number; out: string; outputs: string }> {
  const output = join(dir, `output-${runs}`);
  writeFileSync(output, "");
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    GITHUB_ACTIONS: "true",
    GITHUB_EVENT_NAME: "pull_request",
    GITHUB_EVENT_PATH: event(),
    GITHUB_API_URL: api.url,
    GITHUB_REPOSITORY: `${fake.owner}/${fake.name}`,
    GITHUB_WORKSPACE: workspace,
    GITHUB_OUTPUT: output,
    "INPUT_CHANGED-ONLY": "true",
    INPUT_PATHS: "playbooks/**",
    INPUT_TOKEN: TOKEN,
    ...inputs,
  };
  // Not spawnSync: the GitHub API this child calls is served by this very process.
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [BUNDLE], {
      cwd: workspace,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (c: Buffer) => (out += c.toString()));
    child.stderr.on("data", (c: Buffer) => (out += c.toString()));
    child.on("error", fail);
    child.on("close", (code) =>
      done({ code: code ?? -1, out, outputs: readFileSync(output, "utf8") }),
    );
  });
}

/** The files annotated, and the warnings without a file (what the Action says of itself). */
function read(out: string) {
  const commands = workflowCommands(out);
  return {
    annotated: commands
      .filter((c) => c.name === "error" && c.properties.file !== undefined)
      .map((c) => c.properties.file),
    warnings: commands.filter((c) => c.name === "warning" && c.properties.file === undefined),
  };
}

const filesRequests = (mark: number) =>
  fake
    .since(mark)
    .filter((r) => r.path.startsWith(`/repos/octo/playbooks/pulls/${pr.number}/files`));

describe("changed-only in a shallow checkout", () => {
  it("lists the pull request's files with the API and annotates only them", async () => {
    const ws = checkout("shallow");
    const mark = fake.requests.length;
    const r = await runAction(ws);
    expect(r.code).toBe(1);
    const { annotated, warnings } = read(r.out);
    // Added and renamed (by its new name) are annotated; the unchanged file is only validated.
    expect(annotated.sort()).toEqual(["playbooks/moved.yaml", "playbooks/new.yaml"]);
    expect(warnings).toEqual([]);
    expect(r.outputs).toMatch(/errors<<\S+\n3\n/);
    expect(filesRequests(mark)).toEqual([
      {
        method: "GET",
        path: `/repos/octo/playbooks/pulls/${pr.number}/files?per_page=100&page=1`,
        body: "",
        status: 200,
        authorization: `Bearer ${TOKEN}`,
      },
    ]);
    // The token is masked in the log, and appears nowhere else.
    expect(r.out.split("\n").filter((l) => l.includes(TOKEN))).toEqual([`::add-mask::${TOKEN}`]);
  });

  it("pages through a pull request of more than 100 files", async () => {
    const ws = checkout("shallow");
    const many: FakePullFile[] = Array.from({ length: 249 }, (_, i) => ({
      filename: `docs/page-${i}.md`,
      status: "modified",
    }));
    // The one playbook it changes comes on the last page.
    pr.files = [...many, { filename: "playbooks/new.yaml", status: "added" }];
    const mark = fake.requests.length;
    const r = await runAction(ws);
    expect(read(r.out)).toEqual({ annotated: ["playbooks/new.yaml"], warnings: [] });
    expect(filesRequests(mark).map((q) => q.path.replace(/^.*\?/, ""))).toEqual([
      "per_page=100&page=1",
      "per_page=100&page=2",
      "per_page=100&page=3",
    ]);
  });

  it("when the API refuses, says so and annotates every file (git lacks the base)", async () => {
    const ws = checkout("shallow");
    fake.fault = ({ path }) =>
      path.includes("/files") ? { status: 403, body: { message: "no" } } : undefined;
    const r = await runAction(ws);
    const { annotated, warnings } = read(r.out);
    expect(warnings.map((w) => w.data)).toEqual([
      "changed-only: the GitHub API did not list the pull request's files (HTTP 403); git cannot compare its base and head commits either (a shallow checkout lacks the base: fetch-depth: 0 brings it), so every file is annotated.",
    ]);
    expect(annotated.sort()).toEqual([
      "playbooks/moved.yaml",
      "playbooks/new.yaml",
      "playbooks/old.yaml",
    ]);
  });

  it("when the API refuses in a full checkout, falls back to git and says so", async () => {
    const ws = checkout("full");
    fake.fault = ({ path }) => (path.includes("/files") ? { status: 500 } : undefined);
    const r = await runAction(ws);
    const { annotated, warnings } = read(r.out);
    expect(warnings.map((w) => w.data)).toEqual([
      "changed-only: the GitHub API did not list the pull request's files (HTTP 500); comparing its base and head commits with git instead.",
    ]);
    expect(annotated.sort()).toEqual(["playbooks/moved.yaml", "playbooks/new.yaml"]);
  });

  it("without a token, uses git and says why", async () => {
    const ws = checkout("full");
    const mark = fake.requests.length;
    const r = await runAction(ws, { INPUT_TOKEN: "" });
    expect(read(r.out).warnings.map((w) => w.data)).toEqual([
      "changed-only: the GitHub API did not list the pull request's files (the token input is empty); comparing its base and head commits with git instead.",
    ]);
    expect(filesRequests(mark)).toEqual([]);
  });
});

describe("sarif-file", () => {
  it("writes SARIF with paths from the repository root for upload-sarif", async () => {
    const ws = checkout("shallow");
    const r = await runAction(ws, { "INPUT_SARIF-FILE": "results/playbooks.sarif" });
    const target = join(ws, "results/playbooks.sarif");
    expect(r.outputs).toContain(`sarif-file<<`);
    expect(r.outputs).toContain(target);
    const run = JSON.parse(readFileSync(target, "utf8")).runs[0];
    expect(run.tool.driver.name).toBe("playbook-bot");
    // Every diagnostic, annotated or not.
    expect(
      run.results
        .map(
          (x: { locations: { physicalLocation: { artifactLocation: { uri: string } } }[] }) =>
            x.locations[0]?.physicalLocation.artifactLocation.uri,
        )
        .sort(),
    ).toEqual(["playbooks/moved.yaml", "playbooks/new.yaml", "playbooks/old.yaml"]);
    expect(r.out).toContain("Wrote SARIF for 3 diagnostics to results/playbooks.sarif");
  });
});
