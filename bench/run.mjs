// Run every benchmark in its own `node` process, print the markdown and write bench/results.md.
// Usage: npm run bench (builds dist/ first), or node bench/run.mjs after npm run build.
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import os from "node:os";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const BENCHMARKS = [
  "commands.mjs",
  "validate-1000.mjs",
  "load-20.mjs",
  "hostile.mjs",
  "engine.mjs",
  "action.mjs",
  "alerts.mjs",
  "alerts-app.ts",
  "app.ts",
  "app-load.ts",
  "inbox.ts",
  // Last and longest (about 5 minutes): replicas of npm start under load.
  "replicas.mjs",
];

const header = [
  "# Benchmarks",
  "",
  `- Node ${process.version} on ${os.platform()} ${os.arch()}`,
  `- CPU: ${os.cpus()[0]?.model ?? "unknown"} (${os.availableParallelism()} logical cores), ` +
    `${(os.totalmem() / 1024 ** 3).toFixed(1)} GiB RAM`,
  `- Load average when the run started: ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(", ")}`,
  `- Date: ${new Date().toISOString()}`,
  "",
].join("\n");

console.log(header);
const sections = [header];
let failed = false;
const t0 = performance.now();
for (const bench of BENCHMARKS) {
  process.stderr.write(`${bench}\n`);
  // TypeScript benchmarks reuse the tests' fake GitHub, loaded through tsx.
  const loader = bench.endsWith(".ts") ? ["--import", "tsx"] : [];
  const child = spawnSync(process.execPath, ["--expose-gc", ...loader, join(here, bench)], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
    maxBuffer: 16 * 1024 * 1024,
  });
  if (child.status !== 0) {
    failed = true;
    const section = `## ${bench}\n\nFailed (${child.signal ?? `exit ${child.status}`}).\n`;
    console.log(section);
    sections.push(section);
    continue;
  }
  const section = child.stdout.trimEnd() + "\n";
  console.log(section);
  sections.push(section);
}
const total = `_Whole run: ${((performance.now() - t0) / 1000).toFixed(0)} s._\n`;
console.log(total);
sections.push(total);
writeFileSync(join(here, "results.md"), sections.join("\n"));
process.stderr.write(`wrote ${join("bench", "results.md")}\n`);
if (failed) process.exit(1);
