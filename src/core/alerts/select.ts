import type { PlaybookBundle } from "../steps/types.js";
import { compileLinear } from "../util/regex.js";
import { matches, parseMatchers } from "./matchers.js";
import type { NormalizedAlert } from "./types.js";
import type { IssueSelector } from "../format/types.js";

/** The bundled playbook that takes alerts no selector fits. */
export const DEFAULT_TRIAGE_PLAYBOOK = "alert-triage";

export interface Candidate {
  playbook: string;
  score: number;
  priority: number;
  /** Why: the context type and the signals that matched, with their weights. */
  reasons: string[];
}

export interface Selection {
  chosen?: Candidate;
  /** Every playbook whose selector fits the alert's source and labels, best first. */
  candidates: Candidate[];
  fallback: boolean;
}

const CONTEXT_WEIGHT = 3;
const PRIORITY_WEIGHT = 0.01;

/** Best first: score, then priority, then the smaller id. */
function byFit(a: Candidate, b: Candidate): number {
  return (
    b.score - a.score ||
    b.priority - a.priority ||
    (a.playbook < b.playbook ? -1 : a.playbook > b.playbook ? 1 : 0)
  );
}

/**
 * How well a text fits a selector: its context type (+3), the weights of the signals that match
 * (plain text case-insensitively, or an RE2 regular expression), and a small priority term.
 */
function scoreSelector(
  sel: IssueSelector,
  text: string,
  lower: string,
  hasContext: (type: string) => boolean,
): Omit<Candidate, "playbook"> {
  const reasons: string[] = [];
  let score = 0;
  const ctx = (sel.context_types ?? []).find(hasContext);
  if (ctx) {
    score += CONTEXT_WEIGHT;
    reasons.push(`context type \`${ctx}\` (+${CONTEXT_WEIGHT})`);
  }
  for (const sig of [...(sel.signals?.positive ?? []), ...(sel.signals?.negative ?? [])]) {
    let hit: boolean;
    if (sig.regex) {
      const re = compileLinear(sig.pattern, { ignoreCase: true });
      hit = re.ok && re.regex.test(text);
    } else hit = lower.includes(sig.pattern.toLowerCase());
    if (hit) {
      score += sig.weight;
      reasons.push(`signal \`${sig.pattern}\` (${sig.weight > 0 ? "+" : ""}${sig.weight})`);
    }
  }
  const priority = sel.priority ?? 0;
  score += PRIORITY_WEIGHT * priority;
  return { score: Math.round(score * 1000) / 1000, priority, reasons };
}

/** The longest part of an issue's text that selection reads. */
const MAX_ISSUE_TEXT = 64 * 1024;

/**
 * The playbook a newly opened issue starts: the best `on.issues` selector its title and body fit.
 * Something must match (a signal or a context type such as `request_id: …` in the text) and the
 * score reach min_score; there is no fallback (an issue that fits nothing starts nothing).
 */
export function selectForIssue(
  issue: { title: string; body: string },
  playbooks: readonly PlaybookBundle[],
): Candidate | undefined {
  const text = `${issue.title}\n${issue.body}`.slice(0, MAX_ISSUE_TEXT);
  const lower = text.toLowerCase();
  const candidates: Candidate[] = [];
  for (const b of playbooks) {
    const sel = b.playbook.on?.issues;
    if (!sel) continue;
    const found = scoreSelector(sel, text, lower, (t) => {
      const type = t.toLowerCase();
      return [`${type}:`, `${type} :`, `${type}=`, `${type} =`].some((w) => lower.includes(w));
    });
    if (found.reasons.length === 0 || found.score < (sel.min_score ?? 0)) continue;
    candidates.push({ playbook: b.playbook.id, ...found });
  }
  return candidates.sort(byFit)[0];
}

/** The text signals look at: title, summary, label and annotation values. */
function alertText(alert: NormalizedAlert): string {
  return [
    alert.title,
    alert.summary,
    ...Object.values(alert.labels),
    ...Object.values(alert.annotations),
  ].join("\n");
}

/**
 * Score = context-type match + matched signal weights + a small priority term. The best score at
 * or above the selector's min_score wins; ties go to the higher priority, then the smaller id. No
 * fit falls back to the bundled triage playbook. Regexes run on RE2, in linear time.
 */
export function selectPlaybook(
  alert: NormalizedAlert,
  playbooks: readonly PlaybookBundle[],
): Selection {
  const text = alertText(alert);
  const lower = text.toLowerCase();
  const candidates: Candidate[] = [];
  for (const b of playbooks) {
    const sel = b.playbook.on?.alerts;
    // The default triage playbook is the fallback, never a competitor: its selector only sets
    // its resolve policy, and at score 0 it would win ties (by id) against selectors that fit.
    if (!sel || b.playbook.id === DEFAULT_TRIAGE_PLAYBOOK) continue;
    if (sel.sources && !sel.sources.includes(alert.source)) continue;
    const { matchers, errors } = parseMatchers(sel.match);
    if (errors.length || !matchers.every((m) => matches(m, alert.labels))) continue;
    const found = scoreSelector(sel, text, lower, (t) => alert.labels[t] !== undefined);
    if (found.score < (sel.min_score ?? 0)) continue;
    candidates.push({ playbook: b.playbook.id, ...found });
  }
  candidates.sort(byFit);
  const chosen = candidates[0];
  if (chosen) return { chosen, candidates, fallback: false };
  const fallback = playbooks.find((b) => b.playbook.id === DEFAULT_TRIAGE_PLAYBOOK);
  return fallback
    ? {
        chosen: {
          playbook: fallback.playbook.id,
          score: 0,
          priority: 0,
          reasons: ["no selector fits; the default triage playbook"],
        },
        candidates,
        fallback: true,
      }
    : { candidates, fallback: true };
}
