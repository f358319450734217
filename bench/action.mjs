// The Action's whole-process time on 50 playbooks, next to `node -e 0` (Node's own start-up, the
// floor), as the runner starts it: a child process with INPUT_* and the GITHUB_* files.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { fmt, fmtRatio, median, now, percentile, progress, table } from "./lib/common.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const bundle = join(root, "dist", "action", "index.js");
/** The bytes `mode: validate` loads: the entry and every chunk but the bot's. */
function validateBytes() {
  const chunks = join(root, "dist", "action", "chunks");
  return readdirSync(chunks)
    .filter((f) => !f.startsWith("bot-"))
    .reduce((n, f) => n + readFileSync(join(chunks, f)).length, readFileSync(bundle).length);
}
const ws = mkdtempSync(join(tmpdir(), "pb-bench-action-"));
mkdirSync(join(ws, ".github", "playbooks", "templates"), { recursive: true });
const library = join(root, "playbooks");
const sources = readdirSync(library).filter((f) => f.endsWith(".yaml"));
for (const t of readdirSync(join(library, "templates")))
  writeFileSync(
    join(ws, ".github", "playbooks", "templates", t),
    readFileSync(join(library, "templates", t)),
  );
for (let i = 0; i < 50; i++) {
  const src = sources[i % sources.length];
  const text = readFileSync(join(library, src), "utf8");
  // Every copy gets its own id; targets keep pointing at the originals, which stay in the set.
  const copy = i < sources.length ? text : text.replace(/^id: (.+)$/m, `id: $1-copy-${i}`);
  writeFileSync(join(ws, ".github", "playbooks", `${String(i).padStart(2, "0")}-${src}`), copy);
}
const env = {
  PATH: process.env.PATH,
  GITHUB_WORKSPACE: ws,
  GITHUB_STEP_SUMMARY: join(ws, "summary.md"),
  GITHUB_OUTPUT: join(ws, "output.txt"),
  GITHUB_REPOSITORY: "octo/repo",
  GITHUB_SHA: "abc",
  // The bundle's compile cache (Node 22.1+), kept apart from the machine's.
  NODE_COMPILE_CACHE: join(ws, ".compile-cache"),
};
/** As on a machine that never ran the Action: every start compiles the bundle. */
const uncached = { NODE_DISABLE_COMPILE_CACHE: "1" };

// Each process says the CPU time it used (user and system, every thread) on a pipe of its own as
// it exits: the wall time of a whole process counts whatever else the machine runs, this does not.
const cpuReport = join(ws, "cpu-report.cjs");
writeFileSync(
  cpuReport,
  `process.on("exit", () => { const u = process.cpuUsage(); try { require("node:fs").writeSync(3, String((u.user + u.system) / 1000)); } catch {} });`,
);
function timeRun(args, extra = {}) {
  writeFileSync(env.GITHUB_STEP_SUMMARY, "");
  writeFileSync(env.GITHUB_OUTPUT, "");
  const t0 = now();
  const r = spawnSync(process.execPath, ["--require", cpuReport, ...args], {
    cwd: ws,
    env: { ...env, ...extra },
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe", "pipe"],
  });
  const ms = now() - t0;
  if (r.status !== 0) {
    console.error(r.stdout, r.stderr);
    throw new Error(`exit ${r.status}`);
  }
  return { ms, cpu: Number(r.output[3]) };
}

const RUNS = 15;
progress("action: warm-up");
timeRun([bundle]);
timeRun(["-e", "0"]);
const action = [];
const cold = [];
const floor = [];
progress("action: timed runs");
for (let i = 0; i < RUNS; i++) {
  action.push(timeRun([bundle]));
  cold.push(timeRun([bundle], uncached));
  floor.push(timeRun(["-e", "0"]));
}
const hasCache = typeof (await import("node:module")).enableCompileCache === "function";
timeRun([bundle]);
const out = readFileSync(env.GITHUB_OUTPUT, "utf8");
rmSync(ws, { recursive: true, force: true });
console.log("## The Action on 50 playbooks\n");
console.log(
  `50 playbook files (the bundled library, copied with their own ids), validated by \`node dist/action/index.js\` as the runner starts it (Node ${process.version}); ${RUNS} runs each, interleaved with \`node -e 0\`. On Node 22.1 and later the Action keeps V8's code for its bundle in Node's compile cache (in NODE_COMPILE_CACHE, else beside the bundle), so a start on a machine that ran it before skips compiling it; a fresh hosted runner starts without, as the first row (NODE_DISABLE_COMPILE_CACHE=1). CPU time is each process's own (user and system, every thread), which other work on the machine does not inflate as it does wall time.\n`,
);
const row = (label, runs, base) => {
  const ms = runs.map((r) => r.ms);
  const cpu = runs.map((r) => r.cpu);
  return [
    label,
    fmt(median(ms)),
    fmt(percentile(ms, 95)),
    fmtRatio(median(ms) / median(base.map((r) => r.ms))),
    fmt(median(cpu)),
    fmtRatio(median(cpu) / median(base.map((r) => r.cpu))),
  ];
};
console.log(
  table(
    ["process", "median ms", "p95 ms", "ratio to node -e 0", "CPU ms (median)", "CPU ratio"],
    [
      row("node -e 0 (the floor)", floor, floor),
      row("the Action, 50 playbooks, compiling its bundle", cold, floor),
      row(
        `the Action, 50 playbooks, ${hasCache ? "bundle from the compile cache" : "again (Node 20: no compile cache)"}`,
        action,
        floor,
      ),
    ],
  ),
);
console.log(
  `\nBundle loaded to validate (the entry and its shared chunk; the bot's chunk loads only in \`mode: bot\`): ${(validateBytes() / 1024 / 1024).toFixed(2)} MiB. Outputs of the last run: ${out.match(/files<<\S+\n(\d+)/)?.[1]} files.`,
);
