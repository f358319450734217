import { stat } from "node:fs/promises";
import { join } from "node:path";
import { glob } from "tinyglobby";
import {
  checkExpectedFiles,
  performAiEffect,
  type AiAdapter,
  type AiMessage,
} from "../../runtime/ai.js";
import { playbookError, type PlaybookError } from "../../core/engine/errors.js";
import type { Effect, EffectKind, EffectOutputs, EffectParams } from "../../core/engine/events.js";
import type { RunState } from "../../core/engine/state.js";
import type { CommitFileContent } from "../../core/steps/commit/effect.js";
import { gitBranch, gitCommit, LocalGit } from "./git.js";
import { runScript } from "./script.js";
import { readConfinedText } from "./safe-files.js";

/** A work-tree file a local commit step takes at most (text files a playbook writes). */
const MAX_COMMIT_FILE_BYTES = 10 * 1024 * 1024;
import { NO_TOOLS, performToolCalls, type ToolRunner } from "../../runtime/tool-calls.js";
import { SCRIPT_REFUSED_HINT } from "../../core/steps/script/effect.js";
import {
  performWith,
  type EffectHandlers,
  type EffectOutcome,
  type EffectPerformer,
} from "../../runtime/effects.js";

/** What each kind of effect does, in one line. */
const DOES: { [K in EffectKind]: (params: EffectParams<K>) => string } = {
  branch: (p) => `create branch ${p.name}${p.from ? ` from ${p.from}` : ""}`,
  commit: (p) => {
    const files = [...(p.files ?? []).map((f) => f.path), ...(p.paths ?? [])];
    return `commit "${p.message.split("\n")[0]}" to ${p.branch} (${files.join(", ")})`;
  },
  pull_request: (p) =>
    `open pull request "${p.title}" from ${p.head}${p.base ? ` into ${p.base}` : ""}${p.draft ? " (draft)" : ""}`,
  issue: (p) => `open issue "${p.title}"`,
  label: (p) =>
    `label the issue${p.issue ? ` #${p.issue}` : ""}: +[${(p.add ?? []).join(", ")}] -[${(p.remove ?? []).join(", ")}]`,
  close: (p) => `close the issue${p.issue ? ` #${p.issue}` : ""} as ${p.reason ?? "completed"}`,
  dispatch: (p) =>
    `run workflow ${p.workflow}${p.ref ? ` on ${p.ref}` : ""} with ${JSON.stringify(p.inputs ?? {})}`,
  comment: (p) => `comment: ${p.body.split("\n")[0]}`,
  ai: (p) =>
    `ask the AI adapter (${p.scope ?? "read-only"}): ${p.prompt.split("\n")[0]?.slice(0, 80)}`,
  start_playbook: (p) => `start playbook ${p.playbook}`,
  script: (p) => `run a ${p.shell} script: ${p.run.split("\n")[0]?.slice(0, 80)}`,
  tool_call: (p) => `call ${p.calls.map((c) => c.tool).join(", ")}`,
};

/** Plausible outputs of each kind of effect that was only printed, so later templates still render. */
const PRINTED: { [K in EffectKind]: (params: EffectParams<K>) => EffectOutputs<K> } = {
  branch: (p) => ({ name: p.name, sha: "(not created)", url: "(not created)", created: false }),
  commit: (p) => ({ sha: "(not committed)", url: "(not committed)", branch: p.branch }),
  pull_request: (p) => ({ number: 0, url: "(not opened)", head: p.head, merged: false }),
  issue: () => ({ number: 0, url: "(not opened)" }),
  label: (p) => ({ labels: p.add ?? [] }),
  close: () => ({ state: "closed" }),
  dispatch: () => ({ url: "(not dispatched)" }),
  comment: () => ({ id: "0", url: "(not posted)" }),
  ai: () => ({ text: "(not asked)" }),
  start_playbook: () => ({}),
  script: () => ({ exit_code: 0, stdout: "(not run)", stderr: "" }),
  tool_call: (p) => ({ called: 0, failed: [], results: `(not called: ${p.calls.length})` }),
};

/** One line saying what an effect does (or would do). */
export function describeEffect<K extends EffectKind>(effect: Effect<K>): string {
  return DOES[effect.kind](effect.params);
}

/** Plausible outputs for an effect that was only printed, so later templates still render. */
export function printedOutputs<K extends EffectKind>(effect: Effect<K>): EffectOutputs<K> {
  return PRINTED[effect.kind](effect.params);
}

/** Kinds done here even when GitHub is configured: git, the AI adapter, the terminal as the thread. */
const LOCAL_KINDS: ReadonlySet<EffectKind> = new Set([
  "tool_call",
  "branch",
  "commit",
  "ai",
  "comment",
  "script",
]);

export interface LocalEffectsOptions {
  repo: string;
  dryRun: boolean;
  ai: AiAdapter;
  /** GitHub effects, when a token and a GitHub remote are present. */
  github?: EffectPerformer;
  log: (line: string) => void;
  /** Where the tool calls of investigate steps go (default: none configured). */
  tools?: ToolRunner;
  /** Run `script` steps (`--allow-scripts`); otherwise they are refused. */
  allowScripts?: boolean;
  /** Each message of an `ai` step as the adapter streams it (the CLI prints the text as it comes). */
  aiMessage?: (step: string, message: AiMessage) => void;
}

/** Effects for the CLI: real git locally, GitHub when configured, printed otherwise. */
export class LocalEffects implements EffectPerformer {
  private readonly git: LocalGit;

  /** The effects without GitHub: git, the AI adapter and the terminal; GitHub's kinds are printed. */
  readonly handlers: EffectHandlers = {
    branch: (effect) => this.inRepository(() => gitBranch(this.git, effect)),
    commit: (effect) =>
      this.inRepository(() => gitCommit(this.git, effect, (pattern) => this.readWorkTree(pattern))),
    comment: async (effect) => {
      const p = effect.params;
      const where = p.reply_to
        ? `reply to review comment ${p.reply_to} on #${p.issue ?? "?"}`
        : p.issue
          ? `comment on #${p.issue}`
          : "comment on the thread";
      this.options.log(`${where}:\n${p.body}`);
      return { ok: true, outputs: { id: effect.key, url: "(local thread)" } };
    },
    ai: (effect) => this.ai(effect),
    pull_request: (effect) => this.print(effect, printedOutputs(effect)),
    issue: (effect) => this.print(effect, printedOutputs(effect)),
    label: (effect) => this.print(effect, printedOutputs(effect)),
    close: (effect) => this.print(effect, printedOutputs(effect)),
    dispatch: (effect) => this.print(effect, printedOutputs(effect)),
    start_playbook: (effect) => this.print(effect, printedOutputs(effect)),
    script: (effect) => this.script(effect),
    tool_call: async (effect) => ({
      ok: true,
      outputs: await performToolCalls(this.options.tools ?? NO_TOOLS, effect.params),
    }),
  };

  constructor(private readonly options: LocalEffectsOptions) {
    this.git = new LocalGit(options.repo);
  }

  /** Whether an effect of this kind is only printed (dry run, or GitHub work without GitHub). */
  printsOnly(effect: Pick<Effect, "kind">): boolean {
    if (this.options.dryRun) return true;
    return !LOCAL_KINDS.has(effect.kind) && !this.options.github;
  }

  async perform(effect: Effect, run: RunState): Promise<EffectOutcome> {
    if (this.options.dryRun) return this.print(effect, printedOutputs(effect));
    if (this.options.github && !LOCAL_KINDS.has(effect.kind))
      return this.options.github.perform(effect, run);
    return performWith(this.handlers, effect, run);
  }

  /** Says what the effect would do, and answers with plausible outputs. */
  private async print<O>(effect: Effect, outputs: O): Promise<{ ok: true; outputs: O }> {
    this.options.log(
      `${this.options.dryRun ? "dry run" : "no GitHub token"}: would ${describeEffect(effect)}`,
    );
    return { ok: true, outputs };
  }

  private async inRepository<O>(
    perform: () => Promise<O>,
  ): Promise<O | { ok: false; error: PlaybookError }> {
    if (await this.git.isRepository()) return perform();
    return {
      ok: false,
      error: playbookError(
        "GIT-FAILED",
        `${this.options.repo} is not a git repository`,
        "run inside a git work tree, or pass --repo",
      ),
    };
  }

  /** Scripts run only when the operator said so on the command line. */
  private async script(effect: Effect<"script">): Promise<EffectOutcome<"script">> {
    if (!this.options.allowScripts)
      return {
        ok: false,
        error: playbookError(
          "PB-SCRIPT-REFUSED",
          `step ${effect.step} is a ${effect.params.shell} script, and this run does not allow scripts`,
          SCRIPT_REFUSED_HINT,
        ),
      };
    this.options.log(`running ${describeEffect(effect)}`);
    const { outputs } = await runScript(effect.params, this.options.repo);
    return { ok: true, outputs };
  }

  /** The AI adapter works in the working tree, where the files the step expects must then be. */
  private async ai(effect: Effect<"ai">): Promise<EffectOutcome<"ai">> {
    const { tools, aiMessage } = this.options;
    const answered = await performAiEffect(this.options.ai, effect.params, this.options.repo, {
      ...(tools ? { tools } : {}),
      ...(aiMessage ? { onMessage: (m: AiMessage) => aiMessage(effect.step, m) } : {}),
    });
    if (!answered.ok) return answered;
    return checkExpectedFiles(answered.outputs, effect.params, {
      where: "in the working tree",
      missing: async (paths) => {
        const found = await Promise.all(paths.map((path) => this.isFile(path)));
        return paths.filter((_, i) => !found[i]);
      },
    });
  }

  private async isFile(path: string): Promise<boolean> {
    try {
      return (await stat(join(this.options.repo, path))).isFile();
    } catch {
      return false;
    }
  }

  private async readWorkTree(pattern: string): Promise<CommitFileContent[]> {
    const paths = await glob(pattern, {
      cwd: this.options.repo,
      // A path is a path: dot-folders (`.github/…`, Catalyst's `.xe/…`) are files like any other.
      dot: true,
      ignore: [".git/**", ".playbook-runs/**"],
      followSymbolicLinks: false,
    });
    // Read as data inside the work tree: a link, a device or pipe, or a file over the cap is left out.
    const within = { root: this.options.repo, maxBytes: MAX_COMMIT_FILE_BYTES };
    return paths.sort().flatMap((path) => {
      const content = readConfinedText(join(this.options.repo, path), within);
      return content === undefined ? [] : [{ path, content }];
    });
  }
}
