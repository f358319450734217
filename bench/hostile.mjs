// Time to reject hostile documents with validateSource. Each case runs in its own child process
// (`--case <name>`), so a crash is seen as a crash and peak RSS belongs to that case alone.
// Prints a markdown section on stdout.
import { Buffer } from "node:buffer";
import { spawnSync } from "node:child_process";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";

const REPEATS = 5;
const LIMIT_MS = 1000;

/** The hostile inputs, built outside the timing. */
const CASES = {
  "nesting 10,000 levels deep (`[[[[…`)": () => "[".repeat(10_000) + "]".repeat(10_000) + "\n",
  "alias bomb (9 levels × 9 aliases)": () => {
    const lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    const names = "abcdefghi";
    for (let i = 1; i < names.length; i++) {
      const prev = names[i - 1];
      lines.push(`${names[i]}: &${names[i]} [${Array(9).fill(`*${prev}`).join(",")}]`);
    }
    return lines.join("\n") + "\n";
  },
  "50 MB file (Buffer)": () => {
    const unit = Buffer.from("- key: value with some text in it\n");
    const size = 50 * 1024 * 1024;
    const buf = Buffer.alloc(size);
    for (let at = 0; at < size; at += unit.length) unit.copy(buf, at);
    return buf;
  },
  "1 MB of random binary (Buffer)": () => {
    // Deterministic bytes (xorshift32), not crypto: the point is garbage, not secrecy.
    const buf = Buffer.alloc(1024 * 1024);
    let x = 0x2545f491;
    for (let i = 0; i < buf.length; i++) {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      buf[i] = x & 0xff;
    }
    return buf;
  },
  "900 KB valid-looking YAML, 100k keys": () => {
    const lines = ["apiVersion: playbook-bot/v1", "id: huge"];
    for (let i = 0; i < 100_000; i++) lines.push(`k${i.toString(36).padStart(4, "0")}: 1`);
    return lines.join("\n") + "\n";
  },
};

if (process.argv[2] === "--case") {
  const name = process.argv[3];
  const { validateSource } = await import("../dist/core/rules/validate.js");
  // Warm the modules and the compiled schema, so the figure is the rejection alone.
  validateSource(
    "warm.yaml",
    "apiVersion: playbook-bot/v1\nid: warm\nsteps: [{ id: e, type: end }]\n",
  );
  const input = CASES[name]();
  const size = typeof input === "string" ? Buffer.byteLength(input) : input.byteLength;
  const rssBefore = process.memoryUsage().rss;
  const peakBefore = process.resourceUsage().maxRSS * 1024;
  const times = [];
  let report;
  for (let i = 0; i < REPEATS; i++) {
    const t0 = performance.now();
    report = validateSource("hostile.yaml", input);
    times.push(performance.now() - t0);
    if (i === 0) {
      const first = report.diagnostics[0];
      process.stdout.write(
        JSON.stringify({
          size,
          firstMs: times[0],
          rssDelta: process.memoryUsage().rss - rssBefore,
          peakDelta: process.resourceUsage().maxRSS * 1024 - peakBefore,
          rule: first?.rule ?? null,
          message: first?.message ?? null,
          count: report.diagnostics.length,
          accepted: report.playbook !== undefined,
        }) + "\n",
      );
    }
  }
  process.stdout.write(JSON.stringify({ times }) + "\n");
  process.exit(0);
}

const { fmt, fmtMiB, fmtSize, median, progress, table } = await import("./lib/common.mjs");

const rows = [];
const notes = [];
for (const name of Object.keys(CASES)) {
  progress(`hostile: ${name}…`);
  const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), "--case", name], {
    encoding: "utf8",
    timeout: 60_000,
    maxBuffer: 1024 * 1024,
  });
  const lines = (child.stdout ?? "").trim().split("\n").filter(Boolean);
  if (child.status !== 0 || lines.length < 2) {
    const how = child.error
      ? child.error.message
      : child.signal
        ? `signal ${child.signal}`
        : `exit ${child.status}`;
    rows.push([name, "–", "–", "–", "–", `**crashed** (${how})`, "–"]);
    notes.push(
      `${name}: the process did not finish cleanly: ${(child.stderr ?? "").slice(0, 300)}`,
    );
    continue;
  }
  const first = JSON.parse(lines[0]);
  const { times } = JSON.parse(lines[1]);
  const outcome = first.rule
    ? `\`${first.rule}\`: ${first.message.length > 90 ? first.message.slice(0, 87) + "…" : first.message}`
    : first.accepted
      ? "accepted (no diagnostics)"
      : "no diagnostics";
  rows.push([
    name,
    fmtSize(first.size),
    fmt(first.firstMs),
    fmt(median(times)),
    fmtMiB(Math.max(0, first.peakDelta)),
    outcome,
    first.firstMs < LIMIT_MS && first.rule ? "yes" : "**no**",
  ]);
  if (first.firstMs >= LIMIT_MS)
    notes.push(`${name} took ${fmt(first.firstMs)} ms, more than ${LIMIT_MS} ms.`);
}

console.log(
  [
    "## Hostile documents",
    "",
    `Each case runs \`validateSource\` in its own \`node\` process (modules and schema warmed ` +
      `first). "first" is the first call; "median" is over ${REPEATS} calls. ` +
      `Peak RSS delta is the growth of the process's maximum resident set during the first call ` +
      `(\`process.resourceUsage().maxRSS\`), input already built. Requirement: a clear error ` +
      `within ${LIMIT_MS} ms, never a crash.`,
    "",
    table(
      ["Input", "size", "first ms", "median ms", "peak RSS delta", "first diagnostic", "ok"],
      rows,
      "lrrrrll",
    ),
    "",
    ...(notes.length ? [...notes.map((n) => `- ${n}`), ""] : []),
  ].join("\n"),
);
