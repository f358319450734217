// The GitHub App's own time per delivery and its memory over 200 issues, in process: the app as
// it is deployed (Probot's HTTP middleware on loopback, signed deliveries, installation tokens)
// against the tests' in-memory GitHub behind nock, which answers at once. Each issue runs a short
// playbook (a checkpoint approved by a maintainer, a comment, a label, the end) to completion;
// every delivery is timed and sorted by what it did. The floor is a delivery the app ignores (a
// bot's comment), taken once per issue between the issue's deliveries.
// Run with `node --expose-gc --import tsx bench/app-load.ts` (bench/run.mjs does);
// `--profile FILE` writes a CPU profile of the measured issues.
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { performance } from "node:perf_hooks";
import nock from "nock";
import { OctokitPort } from "../src/adapters/github/octokit-port.js";
import { API, FakeGitHub } from "../test/helpers/fake-github.js";
import { EXAMPLE_REPO, makeClock } from "../test/entries/app/harness.js";
import { ServedHarness } from "../test/entries/app/served.js";
import { fmt, fmtRatio, median, percentile, table } from "./lib/common.mjs";

const PLAYBOOK = `apiVersion: playbook-bot/v1
id: approve-note
name: Approve and note
description: A maintainer approves; the bot comments, labels and ends.
steps:
  - id: approve
    type: checkpoint
    message: Go ahead?
    approvers: { permission: maintain }
  - id: note
    type: comment
    body: "Approved for #{{ issue.number }}."
  - id: mark
    type: label
    add: [noted]
  - id: done
    type: end
    status: success
`;

const arg = (name: string) =>
  process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined;
const ISSUES = Number(arg("--issues") ?? 200);
const WARM_UP = 20;
const profileTo = arg("--profile");
// How GitHub answers: "nock" (the tests' interceptors, which answer each request after two
// timers, a millisecond each at least) or "fetch" (the same fake answering the app's fetch
// directly, so the figures are the app's own time).
const github = arg("--github") ?? "fetch";

nock.disableNetConnect();
const clock = makeClock();
const fake = new FakeGitHub({
  ...EXAMPLE_REPO,
  clock,
  files: { "README.md": "# hello\n", ".github/playbooks/approve-note.yaml": PLAYBOOK },
});
fake.permissions.set("alice", "write");
fake.permissions.set("carol", "maintain");
if (github === "nock") fake.install();
else globalThis.fetch = answeredInProcess(fake, globalThis.fetch);

/** fetch with api.github.com answered by the fake, in process; anything else goes on. */
function answeredInProcess(fake: FakeGitHub, next: typeof fetch): typeof fetch {
  return async (input, init) => {
    const href = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    if (!href.startsWith(`${API}/`)) return next(input, init);
    const url = new URL(href);
    const method = (init?.method ?? "GET").toUpperCase();
    const uri = url.pathname + url.search;
    const raw = typeof init?.body === "string" ? init.body : "";
    const ifNoneMatch = new Headers(init?.headers).get("if-none-match");
    const [status, body, headers] = ifNoneMatch
      ? fake.conditional(method, uri, raw, ifNoneMatch)
      : fake.handle(method, uri, raw);
    const empty = body === "" || body === undefined || status === 204 || status === 304;
    return new Response(empty ? null : JSON.stringify(body), {
      status,
      headers: {
        ...(empty ? {} : { "content-type": "application/json; charset=utf-8" }),
        ...headers,
      },
    });
  };
}

// A delivery is a step when the app performed an effect while handling it.
let effects = 0;
const perform = OctokitPort.prototype.perform;
OctokitPort.prototype.perform = async function (this: OctokitPort, ...args) {
  effects++;
  return perform.apply(this, args);
};

const h = new ServedHarness(fake, clock);
await h.start();

type Kind = "start" | "command" | "step" | "other" | "ignored";
const times: Record<Kind, number[]> = { start: [], command: [], step: [], other: [], ignored: [] };
/** The process's CPU time per delivery (ms): what the delivery cost, whatever else the machine ran. */
const cpu: Record<Kind, number[]> = { start: [], command: [], step: [], other: [], ignored: [] };

/** When profiling: each delivery's kind and span on the profiler's clock (µs). */
const spans: [Kind, number, number][] = [];
const micros = () => Number(process.hrtime.bigint() / 1000n);

async function timed(kind: Kind | undefined, deliver: () => Promise<unknown>): Promise<void> {
  const before = effects;
  const from = micros();
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  await deliver();
  const used = process.cpuUsage(c0);
  const ms = performance.now() - t0;
  const k = kind ?? (effects > before ? "step" : "other");
  times[k].push(ms);
  cpu[k].push((used.user + used.system) / 1000);
  if (profileTo) spans.push([k, from, micros()]);
}

async function drain(): Promise<void> {
  for (let ev = h.takeEvent(); ev; ev = h.takeEvent()) {
    const payload = h.commentPayload(ev);
    const byPerson = !ev.comment.performed_via_github_app;
    await timed(byPerson ? "command" : undefined, () => h.deliver("issue_comment", payload));
  }
}

/** One issue from its label to its run's end, and one ignored delivery on it. */
async function oneIssue(n: number): Promise<void> {
  const issue = fake.openIssue(`Change ${n}`, "Please approve.", "alice").number;
  await timed("start", () => h.label(issue, "playbook:approve-note", "alice"));
  await drain();
  fake.postAs(issue, "carol", "/approve");
  await drain();
  const bot = fake.postAs(issue, "dependabot[bot]", "/approve");
  fake.events.length = 0;
  const payload = h.commentPayload({ action: "created", comment: bot });
  await timed("ignored", () => h.deliver("issue_comment", payload));
  // The fake keeps what it was asked and the harness what it delivered; the app's memory is
  // what is measured.
  fake.requests.length = 0;
  h.delivered.length = 0;
}

function settledRss(): number {
  globalThis.gc?.();
  globalThis.gc?.();
  return process.memoryUsage().rss;
}

process.stderr.write("  app-load: warm-up\n");
for (let i = 0; i < WARM_UP; i++) await oneIssue(i);
for (const list of [...Object.values(times), ...Object.values(cpu)]) list.length = 0;
const rssStart = settledRss();
const heapStart = process.memoryUsage().heapUsed;

const session = profileTo ? new Session() : undefined;
if (session) {
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.start");
}
process.stderr.write(`  app-load: ${ISSUES} issues\n`);
const rssAt: number[] = [];
for (let i = 0; i < ISSUES; i++) {
  await oneIssue(WARM_UP + i);
  if ((i + 1) % 50 === 0) rssAt.push(settledRss());
}
if (session && profileTo) {
  const { profile } = await session.post("Profiler.stop");
  writeFileSync(profileTo, JSON.stringify(profile));
  writeFileSync(`${profileTo}.spans.json`, JSON.stringify(spans));
}
const rssEnd = settledRss();
const heapEnd = process.memoryUsage().heapUsed;
await h.stop();
if (github === "nock") fake.uninstall();

const floor = median(times.ignored);
const cpuFloor = median(cpu.ignored);
const mib = (b: number) => (b / 2 ** 20).toFixed(1);
console.log(`## The GitHub App over ${ISSUES} issues: time per delivery and memory\n`);
console.log(
  `${ISSUES} issues after ${WARM_UP} warm-up ones, one after another, each running a four-step playbook (a checkpoint a maintainer approves, a comment, a label, the end) through Probot's HTTP middleware on loopback with signed deliveries; GitHub is the tests' in-memory fake, ${github === "nock" ? "behind nock (which answers each request after two timers of at least a millisecond each)" : "answering the app's fetch in process, at once"}. A step delivery is one during which the app performed an effect. Floor: a delivery the app ignores (a bot's comment), one per issue through the same server. Wall time is what the sender waits; CPU time is the process's own (user and system, every thread) during the delivery, which other work on the machine does not inflate.\n`,
);
const ORDER: [Kind, string][] = [
  ["ignored", "ignored (the floor)"],
  ["start", "label (run starts)"],
  ["command", "/approve"],
  ["step", "step"],
  ["other", "other (the app's own saves)"],
];
console.log(
  table(
    ["delivery", "count", "median ms", "p95 ms", "× floor", "CPU ms (median)", "CPU × floor"],
    ORDER.map(([k, label]) => [
      label,
      String(times[k].length),
      fmt(median(times[k])),
      fmt(percentile(times[k], 95)),
      fmtRatio(median(times[k]) / floor),
      fmt(median(cpu[k])),
      fmtRatio(median(cpu[k]) / cpuFloor),
    ]),
  ),
);
console.log(
  `\nResident set after the warm-up ${mib(rssStart)} MiB; every 50 issues ${rssAt.map(mib).join(", ")} MiB; after ${ISSUES} issues ${mib(rssEnd)} MiB (${rssEnd >= rssStart ? "+" : ""}${mib(rssEnd - rssStart)} MiB). Heap used ${mib(heapStart)} → ${mib(heapEnd)} MiB (after a full collection; the fake's ${fake.issues.size} issues and their comments included).`,
);
