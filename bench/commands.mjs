// Whole commands as people run them, each a fresh `node` process, timed side by side with its
// floor in the same run: `node -e 0` for start-up, and for validating 1,000 playbooks a plain
// js-yaml + ajv script on the same files and the published schema. Peak RSS and CPU time are the
// process's own (getrusage at exit, through a preloaded hook both sides get): on a machine shared
// with other work, CPU time says what a command costs when wall time says mostly how busy it was.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { fmt, fmtRatio, median, now, progress, table } from "./lib/common.mjs";
import { generatePlaybooks } from "./lib/generate.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const BIN = join(root, "bin", "playbook-bot.js");
const SCHEMA = join(root, "schema", "playbook.v1.schema.json");
const dir = mkdtempSync(join(tmpdir(), "pb-bench-commands-"));

const rssHook = join(dir, "rss.mjs");
writeFileSync(
  rssHook,
  'process.on("exit", () => { const u = process.resourceUsage(); process.stderr.write(`\\nPEAK_RSS_KB ${u.maxRSS}\\nCPU_US ${u.userCPUTime + u.systemCPUTime}\\n`); });\n',
);

// The floor: what any validator of these files must do at least — read each, parse the YAML,
// check it against the published schema (compiled once, at start, as a plain script would).
const floorScript = join(dir, "floor.mjs");
writeFileSync(
  floorScript,
  `import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createRequire } from "node:module";
const require = createRequire(${JSON.stringify(pathToFileURL(join(root, "package.json")).href)});
const yaml = require("js-yaml");
const { Ajv } = require("ajv");
const validate = new Ajv({ allErrors: true, strict: false }).compile(JSON.parse(readFileSync(${JSON.stringify(SCHEMA)}, "utf8")));
const folder = process.argv[2];
let valid = 0;
const verdicts = [];
for (const name of readdirSync(folder).sort()) {
  const ok = validate(yaml.load(readFileSync(join(folder, name), "utf8")));
  verdicts.push({ name, ok, errors: validate.errors });
  if (ok) valid += 1;
}
console.log(JSON.stringify({ files: verdicts.length, valid }));
`,
);

// One playbook: the first generated one (30 steps), alone in its folder.
writeFileSync(join(dir, "one.yaml"), generatePlaybooks(1, { steps: 30 })[0].text);
const many = join(dir, "many");
mkdirSync(many);
for (const p of generatePlaybooks(1000, { steps: 30 }))
  writeFileSync(join(many, p.file.replace("playbooks/", "")), p.text);

/** One whole process: wall time, CPU time and peak RSS. */
function once(args) {
  const t0 = now();
  const r = spawnSync(process.execPath, ["--import", pathToFileURL(rssHook).href, ...args], {
    cwd: dir,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
    env: { PATH: process.env.PATH, NO_COLOR: "1" },
  });
  const ms = now() - t0;
  if (r.status !== 0) throw new Error(`${args.join(" ")}: exit ${r.status}\n${r.stderr}`);
  const rss = Number(/PEAK_RSS_KB (\d+)/.exec(r.stderr)?.[1] ?? NaN) / 1024;
  const cpu = Number(/CPU_US (\d+)/.exec(r.stderr)?.[1] ?? NaN) / 1000;
  return { ms, cpu, rss, out: r.stdout };
}

/** Each measure `runs` times after a warm-up, taking turns so load falls on all alike. */
function sideBySide(measures, runs) {
  const results = measures.map(() => ({ ms: [], cpu: [], rss: [] }));
  for (const m of measures) once(m.args);
  for (let i = 0; i < runs; i++)
    measures.forEach((m, j) => {
      const r = once(m.args);
      results[j].ms.push(r.ms);
      results[j].cpu.push(r.cpu);
      results[j].rss.push(r.rss);
    });
  return results.map((r) => ({ ms: median(r.ms), cpu: median(r.cpu), rss: median(r.rss) }));
}

const START = [
  { name: "`node -e 0` (the floor)", args: ["-e", "0"] },
  { name: "`playbook-bot --version`", args: [BIN, "--version"], goal: 2 },
  { name: "`playbook-bot --help`", args: [BIN, "--help"], goal: 2 },
  { name: "`playbook-bot validate one.yaml`", args: [BIN, "validate", "one.yaml"], goal: 4 },
];
progress("commands: start-up");
const start = sideBySide(START, 15);

const SET = [
  { name: "floor: js-yaml + ajv script", args: [floorScript, many] },
  {
    name: "`playbook-bot validate many/ --no-library -f json`",
    args: [BIN, "validate", "many", "--no-library", "-f", "json"],
    goal: 1.5,
  },
];
progress("commands: 1,000 playbooks");
const set = sideBySide(SET, 5);
const floorOut = JSON.parse(once(SET[0].args).out);
const ours = JSON.parse(once(SET[1].args).out);
rmSync(dir, { recursive: true, force: true });

const goal = (ratio, g) => (g === undefined ? "" : `≤ ${g}× ${ratio <= g ? "✓" : "✗"}`);
console.log("## Whole commands against their floors\n");
console.log(
  "Each command a fresh process as a person starts it, the measures taking turns; median of 15 runs (start-up) and 5 runs (1,000 playbooks) after a warm-up run each.\n",
);
console.log(
  table(
    ["process", "median ms", "ratio to `node -e 0`", "goal", "CPU ms", "CPU ratio", "peak RSS MiB"],
    start.map((r, i) => [
      START[i].name,
      fmt(r.ms),
      fmtRatio(r.ms / start[0].ms),
      goal(r.ms / start[0].ms, START[i].goal),
      fmt(r.cpu),
      fmtRatio(r.cpu / start[0].cpu),
      r.rss.toFixed(0),
    ]),
  ),
);
console.log(
  `\n1,000 generated playbooks of 30 steps on disk (the floor found ${floorOut.valid} of ${floorOut.files} valid; ours ${ours.files.filter((f) => f.valid).length} of ${ours.files.length}, with every layer and cross-file check):\n`,
);
console.log(
  table(
    [
      "process",
      "median ms",
      "ratio to floor",
      "goal",
      "CPU ms",
      "CPU ratio",
      "peak RSS MiB",
      "RSS ratio",
      "goal",
    ],
    set.map((r, i) => [
      SET[i].name,
      fmt(r.ms),
      fmtRatio(r.ms / set[0].ms),
      goal(r.ms / set[0].ms, SET[i].goal),
      fmt(r.cpu),
      fmtRatio(r.cpu / set[0].cpu),
      r.rss.toFixed(0),
      fmtRatio(r.rss / set[0].rss),
      goal(r.rss / set[0].rss, SET[i].goal),
    ]),
  ),
);
