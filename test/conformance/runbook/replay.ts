import { cpSync, existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { MemoryCoordination } from "../../../src/adapters/coordination/memory.js";
import { MemoryGitHub } from "../../../src/adapters/memory/github.js";
import { IssueController } from "../../../src/runtime/run-service/controller.js";
import { repositoryStateKey } from "../../../src/runtime/state-codec.js";
import type { ToolRunner } from "../../../src/runtime/tool-calls.js";
import type { PlaybookBundle } from "../../../src/core/steps/types.js";
import type { Value } from "../../../src/core/engine/state.js";
import { loadLocalPlaybooks } from "../../../src/entries/cli/local-playbooks.js";
import { SEED_REPOS, place } from "../../helpers/seed-repos.js";
import { ROOT } from "../../helpers/git-repo.js";

/** The spec's replay cases, as its repository keeps them (copied unedited). */
export const CASES_DIR = join(SEED_REPOS, "runbook/fixtures/cases");

/** What a case states: the incident, and the runbook and conclusion its engine reaches. */
export interface SpecCase {
  case_id: string;
  incident: { context_id: string; context_type: string; symptom: string; expected: string };
  expected: { runbook: string; primary_conclusion: string; required_finding_types: string[] };
}

export function caseNames(): string[] {
  return readdirSync(CASES_DIR).sort();
}

export function readCase(name: string): SpecCase {
  return JSON.parse(readFileSync(join(CASES_DIR, name, "manifest.json"), "utf8")) as SpecCase;
}

/**
 * The case's recorded tool answers as a tool runner: `trace/lookup` answers with the case's
 * `trace.lookup.json`; an operation the case has no file for is a tool that is not there.
 */
export function caseTools(name: string, calls: string[] = []): ToolRunner {
  return {
    call: async (tool) => {
      calls.push(tool);
      const file = join(CASES_DIR, name, `${tool.replace("/", ".")}.json`);
      if (!existsSync(file))
        return { ok: false, code: "TOOL-UNKNOWN", message: `the case has no ${tool}` };
      return { ok: true, result: JSON.parse(readFileSync(file, "utf8")) as unknown };
    },
  };
}

/** The spec's adapters and evidence policy (copied unedited, with its dialect fixtures). */
const SPEC_METADATA = join(ROOT, "test/fixtures/dialects/runbook");

/**
 * The spec's three runbooks, loaded from their own layout by the CLI's loader: as copied (the
 * runbooks alone), or with the spec's adapters' normalization files and evidence policy beside
 * them, as its repository keeps them.
 */
export async function loadRunbooks(withMetadata = false): Promise<Map<string, PlaybookBundle>> {
  const { repo } = place("runbook", "own");
  if (withMetadata)
    for (const dir of ["adapters", "evidence-policies"])
      cpSync(join(SPEC_METADATA, dir), join(repo, dir), { recursive: true });
  const set = await loadLocalPlaybooks(repo, join(repo, "runbooks/cache_stale.yaml"));
  const runbooks = new Map<string, PlaybookBundle>();
  for (const id of ["cache_stale", "request_not_effective", "state_abnormal"]) {
    const bundle = set.bundles.get(id);
    if (!bundle) throw new Error(`runbook ${id} did not load`);
    runbooks.set(id, bundle);
  }
  return runbooks;
}

/** The issue a team opens for the incident: its symptom as the title, the rest in the form. */
export function incidentIssue(c: SpecCase): { title: string; body: string } {
  const { context_id, context_type, symptom, expected } = c.incident;
  return {
    title: symptom,
    body: `${expected}\n\n${context_type}: ${context_id}\n\n### Context ID\n\n${context_id}\n\n### Context Type\n\n${context_type}\n`,
  };
}

export interface Replay {
  /** The runbook the issue started, or undefined when none did. */
  runbook?: string;
  status?: string;
  /** The decide step's outputs (conclusion, rule, facts, evidence, …). */
  decision?: Record<string, Value>;
  findings: Record<string, unknown>;
  /** The tools called, in order. */
  calls: string[];
}

/**
 * A case through the run service: the issue is opened, the selector picks a runbook, its steps
 * call the tools (answered from the case), and the decision concludes.
 */
export async function replayCase(
  name: string,
  runbooks: Map<string, PlaybookBundle>,
): Promise<Replay> {
  const c = readCase(name);
  const clock = () => new Date("2026-01-05T09:00:00Z");
  const gh = new MemoryGitHub("playbook-bot[bot]", clock);
  gh.permissions.set("dana", "write");
  const calls: string[] = [];
  gh.tools = caseTools(name, calls);
  const { title, body } = incidentIssue(c);
  const issue = gh.openIssue(title, body, "dana");
  const controller = new IssueController({
    memory: new MemoryCoordination(),
    port: gh,
    catalog: { get: (id) => runbooks.get(id), all: () => [...runbooks.values()] },
    stateKey: repositoryStateKey("conformance", 0, 0),
    clock,
    issue: {
      number: issue.number,
      title,
      url: "https://github.test/issues/1",
      author: "dana",
      body,
    },
    repo: { owner: "octo", name: "repo", default_branch: "main" },
    inProcess: true,
  });
  await controller.onOpened({ login: "dana", bot: false }, "delivery-1");
  const run = (await controller.runs())[0]?.run;
  const frame = run?.stack[0];
  return {
    ...(frame ? { runbook: frame.playbook } : {}),
    ...(run ? { status: run.status } : {}),
    ...(frame?.results.decide?.outputs ? { decision: frame.results.decide.outputs } : {}),
    findings: frame?.findings ?? {},
    calls,
  };
}
