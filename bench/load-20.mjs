// Load 20 playbooks from disk (read + validate as a set), warm and in a fresh process, against the
// floor of reading them and running a plain YAML load plus a compiled JSON Schema check.
// Prints a markdown section on stdout. With `--once <ours|floor> <dir>` it is the child process
// of a cold run: it loads once and prints its timings as JSON.
import { Buffer } from "node:buffer";
import { spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";

const COUNT = 20;
const WARM_RUNS = 30;
// Each cold run is a fresh process (~1 s); 12 per loader keeps the whole bench near 2 minutes.
const COLD_RUNS = 12;
const TARGET_MS = 100;
const here = dirname(fileURLToPath(import.meta.url));
const bundledDir = join(here, "..", "playbooks");

/** The two ways of loading a folder: ours (read + validateSet) and the floor (read + load + ajv). */
async function loaders() {
  const [{ validateSet }, { load }, { floorValidator }] = await Promise.all([
    import("../dist/core/rules/validate.js"),
    import("js-yaml"),
    import("./lib/common.mjs"),
  ]);
  const list = (dir) =>
    readdirSync(dir)
      .filter((f) => f.endsWith(".yaml") || f.endsWith(".yml"))
      .sort()
      .map((f) => join(dir, f));
  const ours = (dir) =>
    validateSet(
      list(dir).map((file) => ({ file, source: readFileSync(file) })),
      { fileExists: (file, rel) => existsSync(join(dirname(file), rel)) },
    );
  let validate;
  const floor = (dir) => {
    if (!validate) {
      const t0 = performance.now();
      validate = floorValidator();
      floor.compileMs = performance.now() - t0;
    }
    return list(dir).map((file) => validate(load(readFileSync(file, "utf8"))));
  };
  return { ours, floor };
}

if (process.argv[2] === "--once") {
  // Cold run: everything below happens for the first time in this process.
  const [, , , which, dir] = process.argv;
  const t0 = performance.now();
  const load = (await loaders())[which];
  const t1 = performance.now();
  load(dir);
  const t2 = performance.now();
  process.stdout.write(
    JSON.stringify({
      importMs: t1 - t0,
      loadMs: t2 - t1,
      compileMs: load.compileMs ?? null,
      sinceStartMs: performance.now(),
    }),
  );
  process.exit(0);
}

const { fmt, fmtRatio, median, percentile, progress, sample, table } =
  await import("./lib/common.mjs");

/** 20 files: the bundled playbooks, each in several variants with its own ids. */
function writeSet(dir) {
  const bundled = readdirSync(bundledDir)
    .filter((f) => f.endsWith(".yaml"))
    .sort()
    .map((f) => ({ name: f, text: readFileSync(join(bundledDir, f), "utf8") }));
  const ids = bundled.map((b) => /^id: (\S+)$/m.exec(b.text)?.[1]).filter(Boolean);
  cpSync(join(bundledDir, "templates"), join(dir, "templates"), { recursive: true });
  for (let i = 0; i < COUNT; i++) {
    const b = bundled[i % bundled.length];
    const variant = Math.floor(i / bundled.length);
    let text = b.text.replace(/^# yaml-language-server:.*\n/m, "");
    if (variant > 0) {
      // Rename the ids of the library that this variant has, so it calls its own members (and
      // the originals where the 20 files end before a variant is complete).
      const present = ids.filter((_, j) => variant * bundled.length + j < COUNT);
      for (const id of present)
        text = text.replace(new RegExp(`(?<![\\w-])${id}(?![\\w-])`, "g"), `${id}-v${variant}`);
      text = text.replace(/^(name: .*)$/m, `$1 (variant ${variant})`);
    }
    writeFileSync(join(dir, b.name.replace(/\.yaml$/, `-v${variant}.yaml`)), text);
  }
  return bundled.length;
}

const dir = mkdtempSync(join(tmpdir(), "playbook-bench-"));
try {
  const bundledCount = writeSet(dir);
  const { ours, floor } = await loaders();
  const reports = ours(dir);
  const errors = reports.flatMap((r) => r.diagnostics.filter((d) => d.severity === "error"));
  if (reports.length !== COUNT || errors.length > 0) {
    console.error(
      `load-20 setup bug: ${reports.length} files, ${errors.length} errors` +
        (errors[0] ? `; first: ${errors[0].file} ${errors[0].rule} ${errors[0].message}` : ""),
    );
    process.exit(1);
  }
  const warnings = reports.reduce((n, r) => n + r.diagnostics.length, 0);
  const bytes = reports.reduce((n, r) => n + Buffer.byteLength(r.text), 0);

  progress(`load-20: ${COLD_RUNS} cold runs of each loader (child processes)…`);
  const cold = { ours: [], floor: [] };
  for (let i = 0; i < COLD_RUNS; i++) {
    for (const which of ["ours", "floor"]) {
      const child = spawnSync(
        process.execPath,
        [fileURLToPath(import.meta.url), "--once", which, dir],
        {
          encoding: "utf8",
        },
      );
      if (child.status !== 0) {
        console.error(`cold run of ${which} failed: ${child.stderr}`);
        process.exit(1);
      }
      cold[which].push(JSON.parse(child.stdout));
    }
  }

  progress(`load-20: ${WARM_RUNS} warm runs of each loader…`);
  const warm = {
    ours: sample(() => ours(dir), { warmup: 3, runs: WARM_RUNS }),
    floor: sample(() => floor(dir), { warmup: 3, runs: WARM_RUNS }),
  };

  // Which file costs most, warm: validate each alone a few times.
  const { validateSource } = await import("../dist/core/rules/validate.js");
  const perFile = reports
    .map((r) => {
      const source = readFileSync(r.file);
      return {
        file: r.file,
        ms: median(sample(() => validateSource(r.file, source), { runs: 5 })),
      };
    })
    .sort((a, b) => b.ms - a.ms);
  const slowest = perFile[0];
  const slowestName = basename(slowest.file).replace(/-v\d+\.yaml$/, ".yaml");
  const sameKind = perFile.filter((f) => basename(f.file).startsWith(slowestName.slice(0, -5)));
  const share = sameKind.reduce((n, f) => n + f.ms, 0) / perFile.reduce((n, f) => n + f.ms, 0);

  const row = (name, a, b) => [
    name,
    fmt(median(a)),
    fmt(percentile(a, 95)),
    fmt(median(b)),
    fmt(percentile(b, 95)),
    fmtRatio(median(a) / median(b)),
  ];
  const pick = (which, key) => cold[which].map((c) => c[key]);
  const pickSum = (which) => cold[which].map((c) => c.importMs + c.loadMs);
  const rows = [
    row("warm: read + validate 20 files", warm.ours, warm.floor),
    row("cold: first load in a fresh process", pick("ours", "loadMs"), pick("floor", "loadMs")),
    [
      "cold: … of which ajv compiles the schema",
      "(inside)",
      "",
      fmt(median(pick("floor", "compileMs"))),
      fmt(percentile(pick("floor", "compileMs"), 95)),
      "",
    ],
    row("cold: import modules + first load", pickSum("ours"), pickSum("floor")),
    row(
      "cold: whole process (node start → loaded)",
      pick("ours", "sinceStartMs"),
      pick("floor", "sinceStartMs"),
    ),
  ];
  const coldLoad = median(pick("ours", "loadMs"));
  const coldP95 = percentile(pick("ours", "loadMs"), 95);
  const warmP95 = percentile(warm.ours, 95);
  console.log(
    [
      "## Load 20 playbooks from disk",
      "",
      `${COUNT} files (${(bytes / 1024).toFixed(1)} KiB; the ${bundledCount} bundled ` +
        `playbooks repeated in up to ${Math.ceil(COUNT / bundledCount)} variants with their own ids), read from a temp folder and validated as ` +
        `one set with \`validateSet\` (all layers, file-existence checks included; ` +
        `${warnings} warnings, 0 errors). Floor: read + js-yaml \`load\` + ajv compiled once ` +
        `(cold: compiled in the run). Warm: ${WARM_RUNS} runs after 3 warm-up runs; ` +
        `cold: ${COLD_RUNS} fresh \`node\` processes per loader (p95 of ${COLD_RUNS} is the slowest).`,
      "",
      table(
        [
          "Measure",
          "ours median ms",
          "ours p95 ms",
          "floor median ms",
          "floor p95 ms",
          "ratio (median)",
        ],
        rows,
      ),
      "",
      `Slowest file warm: ${slowestName} (${fmt(slowest.ms)} ms per validation; its ` +
        `${sameKind.length} copies are ${(share * 100).toFixed(0)}% of the set's single-file time).`,
      "",
      `Target < ${TARGET_MS} ms for 20 playbooks: warm p95 ${fmt(warmP95)} ms, ` +
        `cold first load median ${fmt(coldLoad)} ms / p95 ${fmt(coldP95)} ms — ` +
        (Math.max(warmP95, coldP95) < TARGET_MS
          ? "met, warm and cold."
          : warmP95 < TARGET_MS
            ? "met warm, not on a cold first load."
            : "not met."),
      "",
    ].join("\n"),
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
