// The GitHub App: GitHub requests per event (counted on the nock-backed fake GitHub of the tests)
// for a start, an approval and each step kind, on an issue with 10 and with 1,000 comments, and the
// handler's time per event with no network (every request answered in-process).
// Run with `node --import tsx bench/app.ts` (bench/run.mjs does).
import nock from "nock";
import { performance } from "node:perf_hooks";
import { shipRepo } from "../test/entries/app/fixtures.js";
import { Harness, makeClock } from "../test/entries/app/harness.js";
import { FakeGitHub, requestsDuring } from "../test/helpers/fake-github.js";
import { fmt, median, table } from "./lib/common.mjs";

interface Entry {
  event: string;
  requests: number;
  ms: number;
}

async function delivered(
  h: Harness,
  fake: FakeGitHub,
  label: string,
  work: () => Promise<unknown>,
  log: Entry[],
): Promise<void> {
  const t0 = performance.now();
  const r = await requestsDuring(fake, work);
  log.push({ event: label, requests: r.requests.length, ms: performance.now() - t0 });
}

/** Deliver the app's own comment events one by one, naming each by the step it carried out. */
async function drain(h: Harness, fake: FakeGitHub, log: Entry[], names: string[]): Promise<void> {
  for (let ev = h.takeEvent(); ev; ev = h.takeEvent()) {
    const e = ev;
    const byApp = Boolean(e.comment.performed_via_github_app);
    const before = fake.requests.length;
    // The app's first save of a run (its state written into the new status comment) is the
    // event that carries the run into its first step.
    const first = byApp && e.action === "edited" && !names.includes("start's continuation");
    const label = first
      ? "start's continuation"
      : byApp
        ? "continuation"
        : `comment by ${e.comment.user.login}`;
    await delivered(h, fake, label, () => h.deliver("issue_comment", h.commentPayload(e)), log);
    const made = fake.requests.slice(before).map((r) => `${r.method} ${r.path}`);
    const entry = log[log.length - 1] as Entry;
    if (byApp && e.action === "created" && !made.length) entry.event = "the app's other comments";
    if (byApp && e.action === "edited" && !first) {
      const step = made.some((m) => m.includes("POST") && m.includes("/git/refs"))
        ? "branch step"
        : made.some((m) => m.includes("POST") && m.includes("/git/commits"))
          ? "commit step"
          : made.some((m) => m.includes("POST") && m.includes("/pulls"))
            ? "pull_request step"
            : made.some((m) => m.startsWith("PATCH") && /\/issues\/[0-9]+$/.test(m))
              ? "close step"
              : entry.requests > 2
                ? "end step"
                : "continuation with nothing to do";
      entry.event = step;
    }
    names.push(entry.event);
  }
}

async function scenario(priorComments: number): Promise<Entry[]> {
  nock.disableNetConnect();
  const clock = makeClock();
  const fake = shipRepo(clock).install();
  const h = await new Harness(fake, clock).start();
  const log: Entry[] = [];
  const names: string[] = [];
  try {
    const issue = fake.openIssue("Ship it", "Please ship.", "alice");
    for (let i = 0; i < priorComments; i++) fake.postAs(issue.number, "dave", `note ${i}`);
    fake.events.length = 0; // earlier comments: history, not deliveries
    await delivered(
      h,
      fake,
      "start (label)",
      () => h.label(issue.number, "playbook:ship", "alice"),
      log,
    );
    await drain(h, fake, log, names);
    for (const [who, name] of [
      ["bob", "/approve refused"],
      ["carol", "/approve accepted"],
    ] as const) {
      fake.postAs(issue.number, who, "/approve");
      const before = log.length;
      await drain(h, fake, log, names);
      (log[before] as Entry).event = name;
    }
    const pr = [...fake.pulls.values()][0];
    if (pr)
      await delivered(
        h,
        fake,
        "merge (pull_request.closed)",
        () => h.closePull(pr.number, true),
        log,
      );
    await drain(h, fake, log, names);
  } finally {
    fake.uninstall();
  }
  return log;
}

function summarise(log: Entry[]): Map<string, { requests: number; ms: number[] }> {
  const out = new Map<string, { requests: number; ms: number[] }>();
  for (const e of log) {
    const s = out.get(e.event) ?? { requests: e.requests, ms: [] };
    s.ms.push(e.ms);
    out.set(e.event, s);
  }
  return out;
}

const ORDER = [
  "start (label)",
  "start's continuation",
  "/approve refused",
  "/approve accepted",
  "branch step",
  "commit step",
  "pull_request step",
  "merge (pull_request.closed)",
  "close step",
  "end step",
  "continuation with nothing to do",
  "the app's other comments",
];

process.stderr.write("  app: warm-up\n");
await scenario(10);
const small: Entry[][] = [];
for (let i = 0; i < 5; i++) small.push(await scenario(10));
process.stderr.write("  app: issue with 1,000 comments\n");
const large = await scenario(1000);
const s10 = summarise(small.flat());
const s1000 = summarise(large);

console.log("## The GitHub App: requests and handler time per event\n");
console.log(
  "A playbook of checkpoint → branch → commit → pull request (waits for the merge) → close → end, driven through `probot.receive` with every webhook GitHub would send, against the stateful fake GitHub of the tests (nock; no network). Requests are counted per delivery; the handler time is the median of 5 runs (issue with 10 comments). With 1,000 comments the first event lists the thread (10 pages); later events fetch the remembered status comment.\n",
);
console.log(
  table(
    ["event", "requests (10 comments)", "requests (1,000 comments)", "handler ms (median)"],
    ORDER.filter((e) => s10.has(e)).map((e) => [
      e,
      String(s10.get(e)?.requests ?? "–"),
      String(s1000.get(e)?.requests ?? "–"),
      fmt(median(s10.get(e)?.ms ?? [])),
    ]),
  ),
);
const total10 = (small[0] ?? []).reduce((n, e) => n + e.requests, 0);
const total1000 = large.reduce((n, e) => n + e.requests, 0);
console.log(
  `\nWhole scenario: ${total10} requests over ${(small[0] ?? []).length} deliveries (10 comments); ${total1000} with 1,000 comments.`,
);
