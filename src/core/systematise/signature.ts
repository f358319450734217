/**
 * Noticing that work by hand recurs: a stable key for an issue's ad-hoc work — the labels that
 * say what it is about and the set of finding keys people recorded — so that a caller can tell
 * when issues with the same labels and the same findings come back, and offer to systematise them.
 */
import { GENERIC_LABELS, triggerLabels } from "./draft.js";
import type { IssueEvidence } from "./evidence.js";
import { asId } from "./sanitise.js";

export interface SignatureOptions {
  /** Replaces GENERIC_LABELS (labels that never count). */
  genericLabels?: readonly string[];
}

export interface SignatureParts {
  labels: string[];
  findings: string[];
}

const MAX_LABELS = 20;
const MAX_FINDINGS = 100;

/** A label as it stands in a key: lower case, with the key's separators escaped. */
const encode = (s: string): string =>
  s.toLowerCase().replace(/[%,;=]/g, (c) => `%${c.charCodeAt(0).toString(16).padStart(2, "0")}`);

/** The labels and recorded finding keys of an issue's ad-hoc work, sorted and without repeats. */
export function signatureParts(
  evidence: IssueEvidence,
  options: SignatureOptions = {},
): SignatureParts {
  const { labels } = triggerLabels(
    evidence?.issue?.labels,
    options.genericLabels ?? GENERIC_LABELS,
    Number.MAX_SAFE_INTEGER,
  );
  const keys = new Set<string>();
  for (const e of Array.isArray(evidence?.adhoc) ? evidence.adhoc : [])
    if (e?.kind === "record") {
      const key = asId(String(e.key));
      if (key !== undefined) keys.add(key.toLowerCase());
    }
  return {
    labels: [...new Set(labels.map(encode))].sort().slice(0, MAX_LABELS),
    findings: [...keys].sort().slice(0, MAX_FINDINGS),
  };
}

/**
 * A stable key for an issue's ad-hoc work: `labels=<a,b>;findings=<x,y>`, both sorted. The same
 * labels and the same recorded keys give the same key, whatever the order, case or values.
 */
export function adhocSignature(evidence: IssueEvidence, options: SignatureOptions = {}): string {
  const { labels, findings } = signatureParts(evidence, options);
  return `labels=${labels.join(",")};findings=${findings.join(",")}`;
}

function partsOf(x: IssueEvidence | string, options: SignatureOptions): SignatureParts {
  if (typeof x !== "string") return signatureParts(x, options);
  const m = /^labels=([^;]*);findings=(.*)$/.exec(x);
  const split = (s: string | undefined) => (s ? s.split(",").filter((v) => v !== "") : []);
  return { labels: split(m?.[1]), findings: split(m?.[2]) };
}

function jaccard(a: readonly string[], b: readonly string[]): number {
  const sa = new Set(a);
  const sb = new Set(b);
  if (sa.size === 0 && sb.size === 0) return 1;
  let both = 0;
  for (const v of sa) if (sb.has(v)) both++;
  return both / (sa.size + sb.size - both);
}

export interface SimilarOptions extends SignatureOptions {
  /** Least share of the recorded keys the two have in common (default 0.6; 1: the same keys). */
  findings?: number;
  /** Least share of the labels they have in common (default 1: the same labels). */
  labels?: number;
}

/**
 * Whether two issues' ad-hoc work looks like the same work: evidence or keys from
 * `adhocSignature`. Both must have recorded something; their labels must agree (all of them by
 * default) and their recorded keys mostly (60% of the keys either has, by default).
 */
export function similar(
  a: IssueEvidence | string,
  b: IssueEvidence | string,
  options: SimilarOptions = {},
): boolean {
  const pa = partsOf(a, options);
  const pb = partsOf(b, options);
  if (pa.findings.length === 0 || pb.findings.length === 0) return false;
  return (
    jaccard(pa.labels, pb.labels) >= (options.labels ?? 1) &&
    jaccard(pa.findings, pb.findings) >= (options.findings ?? 0.6)
  );
}
