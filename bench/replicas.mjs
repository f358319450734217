// The load an operator sees: R replicas of `npm start` (dist/) sharing a real redis-server, in front
// of a fake GitHub on loopback that delivers the events the app causes. N issues are labelled over T
// seconds with a playbook that waits at a checkpoint, then acts; each is approved once its checkpoint
// is announced. Prints a markdown section on stdout; --json writes the figures as JSON.
//
//   node bench/replicas.mjs [--issues 200] [--seconds 150] [--replicas 2] [--installations 1]
//                           [--playbook comment|pull] [--drain 120] [--json file] [--markdown file]
//   faults: [--slow-ms M] [--fail-after-post P] [--secondary-limit P] [--kill-every S]
//           [--redis-restart-at S] [--redis-persistence none|aof]
//
// Bounded: labelling takes T seconds, then at most --drain seconds for the runs to complete; every
// process is stopped at the end (and on a hard deadline, or Ctrl-C).
import { writeFileSync } from "node:fs";
import os from "node:os";
import { clearInterval, clearTimeout, setInterval, setTimeout } from "node:timers";
import { parseArgs } from "node:util";
import { tsImport } from "tsx/esm/api";
import { median, percentile, progress, table } from "./lib/common.mjs";

const { values: flags } = parseArgs({
  options: {
    issues: { type: "string", default: "200" },
    seconds: { type: "string", default: "150" },
    replicas: { type: "string", default: "2" },
    installations: { type: "string", default: "1" },
    playbook: { type: "string", default: "comment" },
    drain: { type: "string", default: "120" },
    json: { type: "string" },
    "slow-ms": { type: "string", default: "0" },
    "fail-after-post": { type: "string", default: "0" },
    "secondary-limit": { type: "string", default: "0" },
    "kill-every": { type: "string", default: "0" },
    "redis-restart-at": { type: "string", default: "0" },
    "redis-persistence": { type: "string", default: "none" },
    markdown: { type: "string" },
  },
});
const N = Number(flags.issues);
const T = Number(flags.seconds);
const R = Number(flags.replicas);
const K = Number(flags.installations);
const DRAIN = Number(flags.drain);
const PLAYBOOK = flags.playbook === "pull" ? "approve-pull" : "approve-comment";
/** What goes wrong on purpose: GitHub slow or failing, replicas killed, Redis crashed. */
const FAULTS = {
  slowMs: Number(flags["slow-ms"]),
  failAfterPost: Number(flags["fail-after-post"]),
  secondaryLimit: Number(flags["secondary-limit"]),
  killEverySeconds: Number(flags["kill-every"]),
  redisRestartAtSeconds: Number(flags["redis-restart-at"]),
  redisPersistence: flags["redis-persistence"] === "aof" ? "aof" : "none",
};
for (const [name, v] of Object.entries(FAULTS))
  if (name !== "redisPersistence" && !(Number.isFinite(v) && v >= 0))
    throw new Error(`${name} must be a number ≥ 0`);
for (const [name, v] of [
  ["issues", N],
  ["seconds", T],
  ["replicas", R],
  ["installations", K],
  ["drain", DRAIN],
])
  if (!Number.isFinite(v) || v < (name === "seconds" || name === "drain" ? 0 : 1))
    throw new Error(`--${name} must be a number (got ${flags[name]})`);

const helpers = await tsImport("../test/helpers/replicas.ts", import.meta.url);
const { startRedis } = await tsImport("../test/helpers/redis.ts", import.meta.url);
const { OperatorBench, operatorRepo, noteOf, delivered, failedAfterAnswer, unfinished, sleep } =
  helpers;

const redis = await startRedis({ persistence: FAULTS.redisPersistence });
let bench;
let stopped = false;
async function stopAll() {
  if (stopped) return;
  stopped = true;
  await bench?.stop().catch(() => undefined);
  await redis.stop().catch(() => undefined);
}
// Whatever happens, nothing outlives the bench: labelling, the drain, and a minute to spare.
const hardDeadline = setTimeout(
  () => {
    progress("replicas: hard deadline reached; stopping everything");
    void stopAll().then(() => process.exit(2));
  },
  (T + DRAIN + 120) * 1000,
);
hardDeadline.unref();
process.once("SIGINT", () => void stopAll().then(() => process.exit(130)));

const fakes = Array.from({ length: K }, (_, i) => operatorRepo(2 + i));
bench = await OperatorBench.start({
  fakes,
  replicas: R,
  redisUrl: redis.url,
  rssEveryMs: 1000,
  // At debug every delivery ends with an outcome line (ignored and deduplicated ones too), so a
  // delivery without one was cut off.
  env: { LOG_LEVEL: "debug" },
});
progress(`replicas: ${R} replicas ready; labelling ${N} issues over ${T} s`);
const chaos = startFaults();

/** Per issue: its fake, and when it was labelled, announced, approved and completed. */
const issues = Array.from({ length: N }, (_, i) => {
  const fake = fakes[i % K];
  return { fake, number: fake.openIssue(`Change ${i}`, "bench", "alice").number };
});
const label = `playbook:${PLAYBOOK}`;
const t0 = Date.now();
const labelDeliveries = [];

const approver = setInterval(() => {
  const at = Date.now();
  for (const issue of issues) {
    if (issue.labelledAt === undefined || issue.completedAt !== undefined) continue;
    const run = bench.runOf(issue.number, issue.fake);
    if (run?.status === "completed") issue.completedAt = at;
    else if (issue.announcedAt === undefined && bench.announced(issue.number, issue.fake)) {
      issue.announcedAt = at;
      bench.comment(issue.number, "carol", "/approve", issue.fake);
    }
  }
}, 200);

for (let i = 0; i < N; i++) {
  const due = t0 + (i * T * 1000) / N;
  if (due > Date.now()) await sleep(due - Date.now());
  const issue = issues[i];
  issue.labelledAt = Date.now();
  labelDeliveries.push(bench.label(issue.number, label, "alice", { fake: issue.fake }));
}
const labelledAt = Date.now();
progress(`replicas: labelled in ${((labelledAt - t0) / 1000).toFixed(0)} s; draining ≤ ${DRAIN} s`);
const drainUntil = labelledAt + DRAIN * 1000;
let lastReport = 0;
while (Date.now() < drainUntil && issues.some((i) => i.completedAt === undefined)) {
  await sleep(500);
  if (Date.now() - lastReport > 15_000) {
    lastReport = Date.now();
    progress(
      `replicas: ${issues.filter((i) => i.completedAt !== undefined).length}/${N} completed`,
    );
  }
}
clearInterval(approver);
await chaos.stop();
const endedAt = Date.now();
bench.forwardEvents = false;
// Deliveries still in flight get GitHub's 10 s to be answered.
await bench.settled(15_000).catch(() => undefined);
// Work answered 202 goes on: it gets up to 20 s more to end (and log its outcome).
const idleBy = Date.now() + 20_000;
while (Date.now() < idleBy && !(await idle())) await sleep(500);
for (const r of bench.replicas) r.sample();
const logs = bench.logs();
const figures = measure();
await stopAll();
clearTimeout(hardDeadline);

/** Sets GitHub's faults, and schedules the kills and the Redis crash; `stop()` ends them. */
function startFaults() {
  const g = bench.github;
  if (FAULTS.slowMs) g.hang({}, FAULTS.slowMs);
  const comments = { method: "POST", path: /\/issues\/\d+\/comments$/ };
  if (FAULTS.failAfterPost) g.failAfterWrite(comments, 502, Infinity, FAULTS.failAfterPost);
  if (FAULTS.secondaryLimit)
    g.secondaryRateLimit({ method: "POST" }, 10, Infinity, FAULTS.secondaryLimit);
  const done = { kills: 0, redisRestarts: 0 };
  const timers = [];
  const pending = new Set();
  const track = (work) => {
    pending.add(work);
    void work.finally(() => pending.delete(work));
  };
  if (FAULTS.killEverySeconds) {
    let next = 0;
    timers.push(
      setInterval(() => {
        const victim = bench.replicas[next++ % bench.replicas.length];
        done.kills++;
        progress(`replicas: kill -9 replica ${victim.index}`);
        // Down for 2 s, as a supervisor restarts it.
        track(
          victim
            .kill9()
            .then(() => sleep(2000))
            .then(() => !stopped && victim.restart())
            .catch((err) => progress(`replicas: restart failed: ${String(err)}`)),
        );
      }, FAULTS.killEverySeconds * 1000),
    );
  }
  if (FAULTS.redisRestartAtSeconds)
    timers.push(
      setTimeout(() => {
        done.redisRestarts++;
        progress(`replicas: redis-server crashed (${FAULTS.redisPersistence}) and restarted`);
        track(redis.restart({ crash: true, downMs: 2000 }));
      }, FAULTS.redisRestartAtSeconds * 1000),
    );
  return {
    done,
    stop: async () => {
      for (const t of timers) clearInterval(t);
      await Promise.allSettled([...pending]);
      g.clearFaults();
    },
  };
}

/** Whether no replica has a delivery in flight (`playbook_bot_queue_depth`). */
async function idle() {
  for (const r of bench.replicas.filter((x) => x.running)) {
    const running = await r.metric('playbook_bot_queue_depth{state="running"}').catch(() => 1);
    const waiting = await r.metric('playbook_bot_queue_depth{state="waiting"}').catch(() => 1);
    if (running || waiting) return false;
  }
  return true;
}

function measure() {
  const completed = issues.filter((i) => i.completedAt !== undefined);
  const deliveries = bench.deliveries;
  const answered = deliveries.filter((d) => d.answeredAt !== undefined && d.status !== undefined);
  const notDelivered = deliveries.filter((d) => !delivered(d));
  const failedAfter = failedAfterAnswer(deliveries, logs);
  const cutOff = unfinished(deliveries, logs);
  const ms = (xs) => ({ p50: percentile(xs, 50), p99: percentile(xs, 99), n: xs.length });
  const answerMs = answered.map((d) => d.answeredAt - d.sentAt);
  const announced = issues.filter((i) => i.announcedAt !== undefined);
  const toAnnouncement = announced.map((i) => i.announcedAt - i.labelledAt);
  const toCompletion = completed.map((i) => i.completedAt - i.labelledAt);
  const seconds = (endedAt - t0) / 1000;
  const twice = effectsTwice();
  const byInstallation = [...bench.github.countByInstallation()].map(([installation, c]) => {
    const writes = bench.github.seen.filter((r) => r.write && r.installation === installation);
    return {
      installation: String(installation),
      requests: c.requests,
      writes: c.writes,
      requestsPerSecond: c.requests / seconds,
      writesPerSecond: c.writes / seconds,
      peakWritesInASecond: peak(
        writes.map((r) => r.at),
        1000,
      ),
      peakContentWritesInAMinute: peak(
        writes.filter((r) => r.method === "POST").map((r) => r.at),
        60_000,
      ),
    };
  });
  const rss = bench.replicas.map((r) => {
    const kib = r.rss.map((s) => s.kib);
    const mib = (k) => k / 1024;
    return {
      replica: r.index,
      samples: kib.length,
      minMiB: mib(Math.min(...kib)),
      medianMiB: mib(median(kib)),
      maxMiB: mib(Math.max(...kib)),
      lastMiB: mib(kib.at(-1) ?? NaN),
    };
  });
  const outcomes = {};
  for (const l of logs)
    if (typeof l.outcome === "string") outcomes[l.outcome] = (outcomes[l.outcome] ?? 0) + 1;
  // What the replicas said went wrong (warn and above), by message, most frequent first.
  const said = {};
  for (const l of logs)
    if (typeof l.level === "number" && l.level >= 40) {
      const err = typeof l.err === "object" && l.err ? l.err.message : undefined;
      const what = String(err ?? l.msg ?? "")
        .replace(/\d+/g, "N")
        .slice(0, 160);
      said[what] = (said[what] ?? 0) + 1;
    }
  const warnings = Object.entries(said)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 8)
    .map(([message, count]) => ({ message, count }));
  const errors = {};
  for (const d of notDelivered) {
    const why = d.error ?? `answered ${d.status}`;
    errors[why] = (errors[why] ?? 0) + 1;
  }
  return {
    date: new Date(t0).toISOString(),
    machine: `${os.availableParallelism()} logical cores (${os.cpus()[0]?.model ?? "unknown"}), Node ${process.version}`,
    loadAverageAtStart: os.loadavg(),
    settings: {
      issues: N,
      seconds: T,
      replicas: R,
      installations: K,
      playbook: PLAYBOOK,
      drain: DRAIN,
    },
    faults: {
      ...FAULTS,
      ...chaos.done,
      applied: bench.github.seen.reduce((n, r) => {
        for (const k of r.faults ?? []) n[k] = (n[k] ?? 0) + 1;
        return n;
      }, {}),
    },
    durationSeconds: seconds,
    completed: completed.length,
    announced: announced.length,
    runsPerMinute: completed.length / (seconds / 60),
    effectsTwice: twice,
    deliveries: {
      sent: deliveries.length,
      labels: labelDeliveries.length,
      notDelivered: notDelivered.length,
      notDeliveredBy: errors,
      failedAfterAnswer: failedAfter.length,
      unfinished: cutOff.length,
      lost: notDelivered.length + failedAfter.length + cutOff.length,
      answered202: deliveries.filter((d) => d.status === 202).length,
      outcomesLogged: outcomes,
    },
    answerMs: ms(answerMs),
    labelToAnnouncementMs: ms(toAnnouncement),
    labelToCompletionMs: ms(toCompletion),
    github: {
      requests: bench.github.seen.length,
      byInstallation,
      byRoute: bench.github.countByRoute(),
    },
    rss,
    warnings,
  };
}

/** Runs started twice on an issue, and effects done twice (the comment, branch, commit, pull). */
function effectsTwice() {
  let statusTwice = 0;
  let commentTwice = 0;
  let pullTwice = 0;
  for (const { fake, number } of issues) {
    if (fake.statusComments(number).length > 1) statusTwice++;
    const notes = [...fake.comments.values()].filter(
      (c) => c.issue === number && c.body.includes(noteOf(number)),
    );
    if (notes.length > 1) commentTwice++;
    const pulls = [...fake.pulls.values()].filter((p) => p.head === `playbook/bench-${number}`);
    if (pulls.length > 1) pullTwice++;
  }
  // A branch holding more than the one commit the run makes: the commit was made twice.
  let commitTwice = 0;
  for (const { fake, number } of issues) {
    const head = fake.repo.refs.get(`heads/playbook/bench-${number}`);
    const base = fake.repo.refs.get(`heads/${fake.repo.defaultBranch}`);
    if (head && base && fake.repo.ahead(base, head).length > 1) commitTwice++;
  }
  return {
    statusComments: statusTwice,
    comments: commentTwice,
    pulls: pullTwice,
    commits: commitTwice,
  };
}

/** The most events in any window of `windowMs`. */
function peak(times, windowMs) {
  const sorted = [...times].sort((a, b) => a - b);
  let best = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (sorted[i] - sorted[j] >= windowMs) j++;
    best = Math.max(best, i - j + 1);
  }
  return best;
}

function faultsText(x) {
  const said = [];
  if (x.slowMs) said.push(`every GitHub answer ${x.slowMs} ms late`);
  if (x.failAfterPost)
    said.push(
      `${(x.failAfterPost * 100).toFixed(0)}% of comment POSTs answered 502 after being made`,
    );
  if (x.secondaryLimit)
    said.push(
      `${(x.secondaryLimit * 100).toFixed(0)}% of POSTs refused (403 secondary limit, retry-after 10 s)`,
    );
  if (x.killEverySeconds)
    said.push(
      `a replica killed with kill -9 every ${x.killEverySeconds} s and restarted 2 s later (${x.kills} kills)`,
    );
  if (x.redisRestartAtSeconds)
    said.push(
      `redis-server crashed at ${x.redisRestartAtSeconds} s and restarted 2 s later (persistence: ${x.redisPersistence})`,
    );
  const applied = Object.entries(x.applied).map(([k, v]) => `${k} ${v}`);
  return said.length
    ? `${said.join("; ")}${applied.length ? ` — requests faulted: ${applied.join(", ")}` : ""}`
    : "none";
}

function markdown(f) {
  const s = (ms) => (Number.isFinite(ms) ? `${(ms / 1000).toFixed(1)} s` : "–");
  const d = f.deliveries;
  const lines = [
    `## Replicas under load (${f.settings.replicas} × npm start + Redis)`,
    "",
    `${f.settings.issues} issues labelled over ${f.settings.seconds} s (playbook \`${f.settings.playbook}\`: ` +
      `a checkpoint, approved once announced, then ${f.settings.playbook === "approve-pull" ? "a branch, a commit and a pull request" : "a comment"}), ` +
      `${f.settings.installations} installation(s), ${f.settings.replicas} replicas of \`node dist/entries/server.js\` ` +
      `sharing one redis-server, a fake GitHub on loopback delivering the events the app causes ` +
      `(each delivery sent once, 10 s to answer, as GitHub does). At most ${f.settings.drain} s ` +
      `after the last label for the runs to complete. ${f.date}, ${f.machine}.`,
    "",
    `Faults: ${faultsText(f.faults)}.`,
    "",
    table(
      ["Measure", "figure"],
      [
        [
          "runs completed / issues",
          `${f.completed} / ${f.settings.issues} (announced: ${f.announced})`,
        ],
        [
          "throughput",
          `${f.runsPerMinute.toFixed(2)} runs/min over ${f.durationSeconds.toFixed(0)} s`,
        ],
        [
          "effects done twice (issues)",
          `status comments ${f.effectsTwice.statusComments}, comments ${f.effectsTwice.comments}, commits ${f.effectsTwice.commits}, pull requests ${f.effectsTwice.pulls}`,
        ],
        [
          "deliveries lost / sent",
          `${d.lost} / ${d.sent}: not answered 2xx ${d.notDelivered}` +
            (Object.keys(d.notDeliveredBy).length
              ? ` (${Object.entries(d.notDeliveredBy)
                  .map(([k, v]) => `${k}: ${v}`)
                  .join(", ")})`
              : "") +
            `, failed after the answer ${d.failedAfterAnswer}, never finished ${d.unfinished}`,
        ],
        ["answered 202 (work went on after the 9 s answer)", String(d.answered202)],
        [
          "answer latency p50 / p99",
          `${s(f.answerMs.p50)} / ${s(f.answerMs.p99)} (${f.answerMs.n} answered)`,
        ],
        [
          "label → announcement p50 / p99",
          `${s(f.labelToAnnouncementMs.p50)} / ${s(f.labelToAnnouncementMs.p99)} (${f.labelToAnnouncementMs.n})`,
        ],
        [
          "label → completed p50 / p99",
          `${s(f.labelToCompletionMs.p50)} / ${s(f.labelToCompletionMs.p99)} (${f.labelToCompletionMs.n})`,
        ],
      ],
    ),
    "",
    table(
      [
        "installation",
        "requests",
        "writes",
        "requests/s",
        "writes/s",
        "peak writes in 1 s",
        "peak POSTs in 1 min",
      ],
      f.github.byInstallation.map((i) => [
        i.installation,
        String(i.requests),
        String(i.writes),
        i.requestsPerSecond.toFixed(2),
        i.writesPerSecond.toFixed(2),
        String(i.peakWritesInASecond),
        String(i.peakContentWritesInAMinute),
      ]),
    ),
    "",
    table(
      ["replica", "RSS min MiB", "median", "max", "samples"],
      f.rss.map((r) => [
        String(r.replica),
        r.minMiB.toFixed(0),
        r.medianMiB.toFixed(0),
        r.maxMiB.toFixed(0),
        String(r.samples),
      ]),
    ),
    "",
    `Outcomes the replicas logged: ${
      Object.entries(d.outcomesLogged)
        .map(([k, v]) => `${k} ${v}`)
        .join(", ") || "none"
    }.`,
    "",
    ...(f.warnings.length
      ? [
          "What the replicas logged at warn and above, most frequent first (numbers as N):",
          "",
          ...f.warnings.map((w) => `- ${w.count}× ${w.message.replace(/\|/g, "\\|")}`),
          "",
        ]
      : []),
  ];
  return lines.join("\n");
}

const md = markdown(figures);
console.log(md);
if (flags.markdown) writeFileSync(flags.markdown, md);
if (flags.json) writeFileSync(flags.json, JSON.stringify(figures, null, 2) + "\n");
process.exit(0);
