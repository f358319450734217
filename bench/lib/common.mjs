// Helpers shared by the benchmarks: timing, statistics and markdown tables.
import { performance } from "node:perf_hooks";
import { Ajv2020 } from "ajv/dist/2020.js";
import { PLAYBOOK_SCHEMA } from "../../dist/core/format/schema.js";

export const now = () => performance.now();

/** Time `fn` once, in milliseconds. */
export function time(fn) {
  const t0 = performance.now();
  const result = fn();
  return { ms: performance.now() - t0, result };
}

/** Run `fn` `warmup` times untimed, then `runs` times timed; returns the timings in ms. */
export function sample(fn, { warmup = 1, runs = 5 } = {}) {
  for (let i = 0; i < warmup; i++) fn();
  const out = [];
  for (let i = 0; i < runs; i++) out.push(time(fn).ms);
  return out;
}

/** Nearest-rank percentile (p in 0..100) of a list of numbers. */
export function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1];
}

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** A figure for a table: 3 significant decimals below 10, 1 decimal above. */
export function fmt(ms) {
  if (!Number.isFinite(ms)) return "–";
  if (ms < 1) return ms.toFixed(3);
  if (ms < 10) return ms.toFixed(2);
  return ms.toFixed(1);
}

export function fmtRatio(r) {
  return Number.isFinite(r) ? `${r.toFixed(2)}×` : "–";
}

/** A size in bytes, KiB or MiB. */
export function fmtSize(bytes) {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return fmtMiB(bytes);
}

export function fmtMiB(bytes) {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

/**
 * A markdown table from a header row and data rows. `align` has one letter per column, "l" or
 * "r"; by default the first column is left-aligned and the others (figures) right-aligned.
 */
export function table(header, rows, align = "l" + "r".repeat(header.length - 1)) {
  const esc = (c) => String(c).replace(/\|/g, "\\|");
  return [
    `| ${header.map(esc).join(" | ")} |`,
    `| ${header.map((_, i) => (align[i] === "r" ? "---:" : "---")).join(" | ")} |`,
    ...rows.map((r) => `| ${r.map(esc).join(" | ")} |`),
  ].join("\n");
}

/** The floor: a plain schema validator, compiled once, as the product's schema gate is. */
export function floorValidator() {
  return new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true }).compile(
    PLAYBOOK_SCHEMA,
  );
}

/** Progress on stderr, so stdout carries only the markdown. */
export function progress(message) {
  process.stderr.write(`  ${message}\n`);
}

/** Collect garbage between measures when node runs with --expose-gc (bench/run.mjs does). */
export function settle() {
  if (typeof globalThis.gc === "function") globalThis.gc();
}
