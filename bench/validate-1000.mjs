// Validate 1,000 generated playbooks of 30 steps: the full validator against the floor of a plain
// YAML load plus a compiled JSON Schema check. Prints a markdown section on stdout.
import { Buffer } from "node:buffer";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";
// As the CLI, the app and the Action do: parse with js-yaml's CommonJS build.
import "../dist/adapters/local/yaml-library.js";
import { validateSet, validateSource } from "../dist/core/rules/validate.js";
import { generatePlaybooks } from "./lib/generate.mjs";
import {
  floorValidator,
  fmt,
  fmtRatio,
  median,
  now,
  progress,
  settle,
  table,
  time,
} from "./lib/common.mjs";

// The floor parses with js-yaml's CommonJS build too, its fastest under Node.
const { load } = createRequire(import.meta.url)("js-yaml");

const COUNT = 1000;
const STEPS = 30;
const RUNS = 5;

const files = generatePlaybooks(COUNT, { steps: STEPS }).map((p) => ({
  file: p.file,
  source: p.text,
}));
const bytes = files.reduce((n, f) => n + Buffer.byteLength(f.source), 0);

// Peak memory: a fresh process per side (`--peak ours` or `--peak floor`) validates the 1,000
// files once, keeping what it produced (our reports; the floor's parsed values and verdicts), and
// prints its peak resident set in KiB.
if (process.argv[2] === "--peak") {
  const check = process.argv[3] === "ours" ? undefined : floorValidator();
  const kept = check
    ? files.map((f) => {
        const value = load(f.source);
        return { value, ok: check(value) };
      })
    : validateSet(files);
  process.stdout.write(`${process.resourceUsage().maxRSS} ${kept.length}\n`);
  process.exit(0);
}

// The generator promises valid playbooks; anything else is a bug in the generator.
const check = validateSet(files);
const failing = check.filter((r) => r.diagnostics.some((d) => d.severity === "error"));
if (failing.length > 0) {
  const first = failing[0];
  console.error(
    `generator bug: ${failing.length} of ${COUNT} generated playbooks have errors; first: ` +
      `${first.file}: ${first.diagnostics
        .slice(0, 3)
        .map((d) => `${d.rule} ${d.message}`)
        .join("; ")}`,
  );
  process.exit(1);
}
const warnings = check.reduce((n, r) => n + r.diagnostics.length, 0);

const validate = floorValidator();
const floorCheck = files.filter((f) => !validate(load(f.source))).length;
if (floorCheck > 0) {
  console.error(`generator bug: ${floorCheck} playbooks fail the plain schema check`);
  process.exit(1);
}

progress(`validate-1000: ${COUNT} playbooks, ${(bytes / 1024).toFixed(0)} KiB; timing…`);

// The checks above were the warm-up run of every measure. The measures then take turns, so that
// a slow moment of the machine does not fall on one of them only.
const measures = [
  { name: "ours: `validateSet` (all layers incl. cross-file)", runs: [] },
  { name: "ours: `validateSource` per file (single-file layers)", runs: [] },
  { name: "floor: js-yaml `load` (CommonJS build) + ajv (compiled once)", runs: [], floor: true },
  { name: "… of which js-yaml `load`", runs: [] },
  { name: "… of which ajv", runs: [] },
];
for (let round = 0; round < RUNS; round++) {
  settle();
  measures[0].runs.push(time(() => validateSet(files)).ms);
  settle();
  measures[1].runs.push(
    time(() => {
      for (const f of files) validateSource(f.file, f.source);
    }).ms,
  );
  settle();
  let loadMs = 0;
  let ajvMs = 0;
  for (const f of files) {
    const t0 = now();
    const value = load(f.source);
    const t1 = now();
    validate(value);
    loadMs += t1 - t0;
    ajvMs += now() - t1;
  }
  measures[2].runs.push(loadMs + ajvMs);
  measures[3].runs.push(loadMs);
  measures[4].runs.push(ajvMs);
  progress(`validate-1000: round ${round + 1}/${RUNS} done`);
}
const floor = median(measures.find((m) => m.floor).runs);

const rows = measures.map((m) => {
  const med = median(m.runs);
  return [
    m.name,
    fmt(med),
    `${fmt(Math.min(...m.runs))} – ${fmt(Math.max(...m.runs))}`,
    fmt(med / COUNT),
    fmtRatio(med / floor),
  ];
});

console.log(
  [
    `## Validate 1,000 playbooks of ${STEPS} steps`,
    "",
    `${COUNT} generated playbooks (${(bytes / 1024).toFixed(0)} KiB of YAML, ` +
      `${(bytes / COUNT / 1024).toFixed(1)} KiB each), in memory; all validate with 0 errors ` +
      `(${warnings} warnings). Median of ${RUNS} runs after 1 warm-up run; the measures take turns.`,
    "",
    table(
      ["Measure", "total ms (median)", "min – max ms", "ms / playbook", "ratio to floor"],
      rows,
    ),
    "",
  ].join("\n"),
);

// Linear in the playbook's size: one valid playbook of 10, 100 and 1,000 steps (the largest
// about 340 KiB), each against the floor on the same text, measured in turns.
const sizes = [10, 100, 1000].map((steps) => {
  const [p] = generatePlaybooks(1, { steps });
  return { steps, file: p.file, text: p.text, ours: [], floor: [] };
});
// A small playbook takes well under a millisecond: each sample repeats it enough to last about as
// long as the others, and a first round (not kept) warms every size up. No forced collection
// between these samples: a full collection can drop the compiled code of a function used once
// per sample, and the samples measured recompiling it rather than validating.
const GROWING_RUNS = 9;
for (let round = 0; round <= GROWING_RUNS; round++) {
  for (const s of sizes) {
    const reps = s.steps >= 1000 ? 5 : s.steps >= 100 ? 40 : 300;
    const ours =
      time(() => {
        for (let i = 0; i < reps; i++) validateSource(s.file, s.text);
      }).ms / reps;
    const floor =
      time(() => {
        for (let i = 0; i < reps; i++) validate(load(s.text));
      }).ms / reps;
    if (round === 0) continue;
    s.ours.push(ours);
    s.floor.push(floor);
  }
}
console.log(
  [
    "### One playbook, growing",
    "",
    "One generated valid playbook per size, `validateSource` against the floor on the same text; " +
      `median of ${GROWING_RUNS} runs after a warm-up run.`,
    "",
    table(
      ["steps", "KiB", "ours ms", "floor ms", "ratio to floor"],
      sizes.map((s) => [
        String(s.steps),
        (Buffer.byteLength(s.text) / 1024).toFixed(0),
        fmt(median(s.ours)),
        fmt(median(s.floor)),
        fmtRatio(median(s.ours) / median(s.floor)),
      ]),
    ),
    "",
  ].join("\n"),
);

// Peak memory, each side in 3 fresh processes (the median), as the whole process's resident set.
progress("validate-1000: peak memory");
const peak = (side) =>
  median(
    Array.from({ length: 3 }, () => {
      const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), "--peak", side], {
        encoding: "utf8",
      });
      if (child.status !== 0) throw new Error(child.stderr);
      return Number(child.stdout.split(" ")[0]) / 1024;
    }),
  );
const oursPeak = peak("ours");
const floorPeak = peak("floor");
console.log(
  [
    "### Peak memory",
    "",
    "Each side validates the 1,000 playbooks once in a fresh process and keeps what it produced (our reports with their playbooks; the floor's parsed values and verdicts); peak resident set of the whole process, median of 3 processes.",
    "",
    table(
      ["side", "peak RSS MiB", "ratio to floor"],
      [
        ["ours: `validateSet`", oursPeak.toFixed(0), fmtRatio(oursPeak / floorPeak)],
        ["floor: js-yaml + ajv", floorPeak.toFixed(0), "1.00×"],
      ],
    ),
    "",
  ].join("\n"),
);
