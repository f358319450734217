/**
 * Where a draft's investigations begin and end, when someone else says so. The drafting groups
 * findings by the order they were recorded in (a note, a choice, an approval or a pull request
 * ends a group); an AI adapter may know better which findings belong to one piece of work. Its
 * answer is only a list of groups of finding keys: `applySeams` takes it when it keeps every
 * finding in the order the issue shows and never joins findings across a choice, an approval or a
 * pull request — so the seams move, and nothing else does. Pure.
 */
import type { FindingValue } from "./evidence.js";
import { asId, oneLine } from "./sanitise.js";

/** One investigation the adapter proposes: the finding keys it expects, in order, and an id. */
export interface Seam {
  id?: string;
  findings: string[];
}

/** An investigation of the draft before it becomes a step. */
export interface InvestigationBlock {
  kind: "investigation";
  notes: string[];
  findings: Map<string, FindingValue>;
  choice?: { label: string; condition?: string };
  /** Where the findings came from (a run's step), for the step's description. */
  from?: string;
  /** The id proposed for the step. */
  name?: string;
}

export type SeamsResult<B> =
  | { ok: true; blocks: (B | InvestigationBlock)[]; changed: boolean; note: string }
  | { ok: false; reason: string };

/** Groups and keys an answer may hold: more than a draft can have is not an answer. */
const MAX_SEAMS = 100;
const MAX_KEYS = 2000;

function isInvestigation<B extends { kind: string }>(
  b: B | InvestigationBlock,
): b is InvestigationBlock {
  return b.kind === "investigation";
}

/** The answer as seams, or why it is not one. Accepts a list, or `{ investigations: [...] }`. */
export function readSeams(raw: unknown): Seam[] | string {
  const list =
    raw && typeof raw === "object" && !Array.isArray(raw)
      ? (raw as { investigations?: unknown }).investigations
      : raw;
  if (!Array.isArray(list)) return "it is not a list of investigations";
  if (list.length === 0) return "it lists no investigation";
  if (list.length > MAX_SEAMS) return `it lists more than ${MAX_SEAMS} investigations`;
  const seams: Seam[] = [];
  let keys = 0;
  for (const [i, item] of list.entries()) {
    const findings = (item as { findings?: unknown } | null)?.findings;
    if (!Array.isArray(findings) || findings.length === 0)
      return `investigation ${i + 1} names no findings`;
    keys += findings.length;
    if (keys > MAX_KEYS) return `it names more than ${MAX_KEYS} findings`;
    if (!findings.every((f) => typeof f === "string"))
      return `investigation ${i + 1} names a finding that is not a key`;
    const seam: Seam = { findings: findings as string[] };
    const id = (item as { id?: unknown }).id;
    if (typeof id === "string") seam.id = id;
    seams.push(seam);
  }
  return seams;
}

/**
 * The draft's blocks with their investigations regrouped as `raw` says, or why not. Blocks that
 * are not investigations, and investigations that recorded nothing (a bare choice), stay where
 * they are; each new investigation takes the notes and the origin of the blocks it starts from,
 * and the choice of the block it ends with.
 */
export function applySeams<B extends { kind: string; notes: string[] }>(
  blocks: readonly (B | InvestigationBlock)[],
  raw: unknown,
): SeamsResult<B> {
  const seams = readSeams(raw);
  if (typeof seams === "string") return { ok: false, reason: seams };
  const out: (B | InvestigationBlock)[] = [];
  let g = 0;
  let j = 0;
  let open: InvestigationBlock | undefined;
  let sameAsBefore = true;
  const named = (i: number): string => `investigation ${i + 1}`;
  const shown = (key: string): string => `'${oneLine(key, 40)}'`;

  for (const block of blocks) {
    if (!isInvestigation(block) || block.findings.size === 0) {
      if (open)
        return {
          ok: false,
          reason: `${named(g)} joins findings across ${isInvestigation(block) ? `the choice '${oneLine(block.choice?.label ?? "", 40)}'` : block.kind === "pr" ? "a pull request" : `an ${block.kind}`}`,
        };
      out.push(block);
      continue;
    }
    const keys = [...block.findings.keys()];
    // A block regrouped whole, alone, keeps the draft's seams.
    if (!open && seams[g]?.findings.length !== keys.length) sameAsBefore = false;
    for (const [k, key] of keys.entries()) {
      const seam = seams[g];
      if (!seam) return { ok: false, reason: `it leaves out the finding ${shown(key)}` };
      const proposed = seam.findings[j] as string;
      if (proposed.toLowerCase() !== key.toLowerCase())
        return {
          ok: false,
          reason: `${named(g)} names ${shown(proposed)} where the issue shows ${shown(key)}: findings keep their order`,
        };
      if (!open) {
        open = { kind: "investigation", notes: [], findings: new Map() };
        const id = seam.id === undefined ? undefined : asId(seam.id, 56);
        if (id !== undefined) open.name = id;
        if (block.from !== undefined) open.from = block.from;
        out.push(open);
      } else if (k === 0) sameAsBefore = false;
      if (k === 0) open.notes.push(...block.notes);
      open.findings.set(key, block.findings.get(key) as FindingValue);
      j++;
      if (j === seam.findings.length) {
        if (k !== keys.length - 1) sameAsBefore = false;
        g++;
        j = 0;
        if (k === keys.length - 1 && block.choice) open.choice = block.choice;
        open = undefined;
      }
    }
    if (open && block.choice)
      return {
        ok: false,
        reason: `${named(g)} goes on past the choice '${oneLine(block.choice.label, 40)}'; a choice ends an investigation`,
      };
  }
  if (open || g < seams.length) {
    const extra = seams[g]?.findings[j] ?? "";
    return {
      ok: false,
      reason: `${named(g)} names ${shown(extra)}, which the issue does not show after what came before`,
    };
  }
  const count = out.filter((b) => isInvestigation(b) && b.findings.size > 0).length;
  const before = blocks.filter((b) => isInvestigation(b) && b.findings.size > 0).length;
  const changed = !sameAsBefore;
  return {
    ok: true,
    blocks: out,
    changed,
    note: changed
      ? `Findings grouped into ${count} investigation${count === 1 ? "" : "s"} as the AI adapter proposed (the order of the issue made ${before}).`
      : "The AI adapter's grouping of findings is the draft's own.",
  };
}
