import { readFile } from "node:fs/promises";
import { glob } from "tinyglobby";
import { runAiEffect, type AiAdapter } from "../ai/adapter.js";
import { playbookError } from "../../core/engine/errors.js";
import type { Effect } from "../../core/engine/events.js";
import type { RunState, Value } from "../../core/engine/state.js";
import { gitBranch, gitCommit, LocalGit } from "./git.js";
import type { EffectOutcome, EffectPerformer } from "../../runtime/effects.js";

/** One line saying what an effect does (or would do). */
export function describeEffect(effect: Effect): string {
  const p = effect.params;
  switch (effect.kind) {
    case "branch":
      return `create branch ${String(p.name)}${p.from ? ` from ${String(p.from)}` : ""}`;
    case "commit": {
      const files = (p.files as { path: string }[] | undefined)?.map((f) => f.path) ?? [];
      const paths = (p.paths as string[] | undefined) ?? [];
      return `commit "${String(p.message).split("\n")[0]}" to ${String(p.branch)} (${[...files, ...paths].join(", ")})`;
    }
    case "pull_request":
      return `open pull request "${String(p.title)}" from ${String(p.head)}${p.base ? ` into ${String(p.base)}` : ""}${p.draft ? " (draft)" : ""}`;
    case "issue":
      return `open issue "${String(p.title)}"`;
    case "label":
      return `label the issue${p.issue ? ` #${String(p.issue)}` : ""}: +[${(p.add as string[]).join(", ")}] -[${(p.remove as string[]).join(", ")}]`;
    case "close":
      return `close the issue${p.issue ? ` #${String(p.issue)}` : ""} as ${String(p.reason)}`;
    case "dispatch":
      return `run workflow ${String(p.workflow)}${p.ref ? ` on ${String(p.ref)}` : ""} with ${JSON.stringify(p.inputs ?? {})}`;
    case "comment":
      return `comment: ${String(p.body).split("\n")[0]}`;
    case "ai":
      return `ask the AI adapter (${String(p.scope)}): ${String(p.prompt).split("\n")[0]?.slice(0, 80)}`;
    case "start_playbook":
      return `start playbook ${String(p.playbook)}`;
  }
}

/** Plausible outputs for an effect that was only printed, so later templates still render. */
export function printedOutputs(effect: Effect): Record<string, Value> {
  const p = effect.params;
  switch (effect.kind) {
    case "branch":
      return { name: String(p.name), sha: "(not created)", created: false };
    case "commit":
      return { sha: "(not committed)", branch: String(p.branch) };
    case "pull_request":
      return { number: 0, url: "(not opened)", head: String(p.head), merged: false };
    case "issue":
      return { number: 0, url: "(not opened)" };
    case "label":
      return { labels: (p.add as string[] | undefined) ?? [] };
    case "close":
      return { state: "closed" };
    case "dispatch":
      return { url: "(not dispatched)" };
    case "comment":
      return { id: "0", url: "(not posted)" };
    case "ai":
      return { text: "(not asked)" };
    case "start_playbook":
      return {};
  }
}

export interface LocalEffectsOptions {
  repo: string;
  dryRun: boolean;
  ai: AiAdapter;
  /** GitHub effects, when a token and a GitHub remote are present. */
  github?: EffectPerformer;
  log: (line: string) => void;
}

/** Effects for the CLI: real git locally, GitHub when configured, printed otherwise. */
export class LocalEffects implements EffectPerformer {
  private readonly git: LocalGit;

  constructor(private readonly options: LocalEffectsOptions) {
    this.git = new LocalGit(options.repo);
  }

  /** Whether an effect is only printed (dry run, or GitHub work without GitHub). */
  printsOnly(effect: Effect): boolean {
    if (this.options.dryRun) return true;
    if (
      effect.kind === "branch" ||
      effect.kind === "commit" ||
      effect.kind === "ai" ||
      effect.kind === "comment"
    )
      return false;
    return !this.options.github;
  }

  async perform(effect: Effect, run: RunState): Promise<EffectOutcome> {
    if (this.printsOnly(effect)) {
      this.options.log(
        `${this.options.dryRun ? "dry run" : "no GitHub token"}: would ${describeEffect(effect)}`,
      );
      return { ok: true, outputs: printedOutputs(effect) };
    }
    switch (effect.kind) {
      case "branch":
      case "commit":
        if (!(await this.git.isRepository())) {
          return {
            ok: false,
            error: playbookError(
              "GIT-FAILED",
              `${this.options.repo} is not a git repository`,
              "run inside a git work tree, or pass --repo",
            ),
          };
        }
        if (effect.kind === "branch") return gitBranch(this.git, effect);
        return gitCommit(this.git, effect, (pattern) => this.readWorkTree(pattern));
      case "comment":
        this.options.log(`comment on the thread:\n${String(effect.params.body)}`);
        return { ok: true, outputs: { id: effect.key, url: "(local thread)" } };
      case "ai":
        return {
          ok: true,
          outputs: await runAiEffect(this.options.ai, effect.params, this.options.repo),
        };
      default:
        return (this.options.github as EffectPerformer).perform(effect, run);
    }
  }

  private async readWorkTree(pattern: string): Promise<{ path: string; content: string }[]> {
    const paths = await glob(pattern, {
      cwd: this.options.repo,
      dot: false,
      ignore: [".git/**", ".playbook-runs/**"],
    });
    return Promise.all(
      paths.sort().map(async (path) => ({
        path,
        content: await readFile(`${this.options.repo}/${path}`, "utf8"),
      })),
    );
  }
}
