/**
 * The AI's part in a draft: better words, never another structure. `applyWording` takes the text
 * fields an adapter suggests — the playbook's name and description, and steps' descriptions — and
 * nothing else; each is sanitised and bounded like people's text (no templates, no mentions, no
 * control characters), the draft is validated again, and the original is kept when the result
 * does not validate or the suggestion changes nothing. Pure and deterministic.
 */
import type { PlaybookDocument, Step } from "../format/types.js";
import type { KnownPlaybook } from "../rules/validate.js";
import { checkPlaybookValue, sameData } from "./check.js";
import { DEFAULT_DRAFT_LIMITS } from "./draft.js";
import { oneLine, prose } from "./sanitise.js";

/** The words an AI adapter may suggest for a draft. */
export interface Wording {
  name?: string;
  description?: string;
  steps?: Record<string, { description?: string }>;
}

/** A draft as `draftPlaybook` returns it. */
export interface Draft {
  playbook: PlaybookDocument;
  yaml: string;
  summary: string[];
}

export interface WordingOptions {
  known?: KnownPlaybook[];
  /** Characters of the name (120) and of a description (2000). */
  maxLineChars?: number;
  maxProseChars?: number;
}

/** The draft with every text field `applyWording` may change blanked: what must stay the same. */
function skeleton(playbook: PlaybookDocument): unknown {
  const copy = structuredClone(playbook) as unknown as Record<string, unknown>;
  delete copy.name;
  delete copy.description;
  const blank = (s: Record<string, unknown>) => delete s.description;
  for (const s of (copy.steps as Record<string, unknown>[] | undefined) ?? []) blank(s);
  for (const s of Object.values((copy.nodes as Record<string, Record<string, unknown>>) ?? {}))
    blank(s);
  return copy;
}

/**
 * Apply suggested wording to a draft. Returns the reworded draft (validated again), or the
 * original draft with a line in its summary saying why the wording was not used.
 */
export function applyWording(
  draft: Draft,
  wording: Wording | undefined,
  options: WordingOptions = {},
): Draft {
  const maxLine = options.maxLineChars ?? DEFAULT_DRAFT_LIMITS.maxLineChars;
  const maxProse = options.maxProseChars ?? DEFAULT_DRAFT_LIMITS.maxProseChars;
  const keep = (why: string): Draft => ({ ...draft, summary: [...draft.summary, why] });
  if (!wording || typeof wording !== "object" || Array.isArray(wording))
    return keep("No wording was suggested; the draft keeps its own.");

  const playbook = structuredClone(draft.playbook);
  const changed: string[] = [];
  const ignored: string[] = [];
  const text = (v: unknown, max: number, lines: boolean): string | undefined => {
    if (typeof v !== "string") return undefined;
    const s = lines ? prose(v, max) : oneLine(v, max);
    return s === "" ? undefined : s;
  };

  const name = text(wording.name, maxLine, false);
  if (name !== undefined && name !== playbook.name) {
    playbook.name = name;
    changed.push("name");
  }
  const description = text(wording.description, maxLine * 3, false);
  if (description !== undefined && description !== playbook.description) {
    playbook.description = description;
    changed.push("description");
  }

  const steps = new Map<string, Step | Omit<Step, "id">>();
  for (const s of playbook.steps ?? []) steps.set(s.id, s);
  for (const [id, s] of Object.entries(playbook.nodes ?? {})) steps.set(id, s);
  const asked =
    wording.steps && typeof wording.steps === "object" && !Array.isArray(wording.steps)
      ? Object.entries(wording.steps)
      : [];
  for (const [id, words] of asked.slice(0, 200)) {
    const step = steps.get(id);
    if (!step) {
      ignored.push(oneLine(id, 40));
      continue;
    }
    const d = text(
      words && typeof words === "object"
        ? (words as { description?: unknown }).description
        : undefined,
      maxProse,
      true,
    );
    if (d !== undefined && d !== step.description) {
      step.description = d;
      changed.push(`${id}.description`);
    }
  }

  const notes: string[] = [];
  if (ignored.length > 0)
    notes.push(
      `Wording for steps the draft does not have was ignored: ${ignored.slice(0, 10).join(", ")}.`,
    );
  if (changed.length === 0)
    return keep(["The suggested wording changed nothing.", ...notes].join(" "));
  if (!sameData(skeleton(playbook), skeleton(draft.playbook)))
    return keep("The suggested wording was not used: it would have changed more than text.");
  const checked = checkPlaybookValue(
    `${playbook.id}.yaml`,
    playbook,
    options.known ? { known: options.known } : {},
  );
  if (!checked.ok)
    return keep(
      `The suggested wording was not used: the draft would not validate (${checked.problems.slice(0, 2).join("; ")}).`,
    );
  return {
    playbook: checked.playbook,
    yaml: checked.yaml,
    summary: [...draft.summary, `Reworded: ${changed.join(", ")}.`, ...notes],
  };
}
