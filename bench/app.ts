// The GitHub App: GitHub requests and time per delivery, through the app as it is deployed
// (Probot authenticated with a private key, so installation tokens are asked for; a real HTTP
// server on loopback; deliveries signed with the webhook secret), against the nock-backed fake
// GitHub of the tests. The scenario (test/entries/app/request-scenario.ts, shared with the tests):
// an eleven-step release playbook with two `comment` steps, on an issue with a 1,000-comment
// thread and 50 finished runs, the process restarted while the run waits for its merge.
// Run with `node --import tsx bench/app.ts` (bench/run.mjs does).
import nock from "nock";
import { requestScenario, type DeliveryCost } from "../test/entries/app/request-scenario.js";
import { fmt, fmtRatio, median, table } from "./lib/common.mjs";

nock.disableNetConnect();
process.stderr.write("  app: warm-up\n");
await requestScenario({ finishedRuns: 5, comments: 100, floorSamples: 5 });
process.stderr.write("  app: 1,000 comments, 50 finished runs\n");
const r = await requestScenario({ finishedRuns: 50, comments: 1000, floorSamples: 50 });

const floor = median(r.floor.map((d) => d.ms));
const ORDER = ["start", "continuation", "command", "step", "earlier save", "app comment"];
const byKind = (list: DeliveryCost[], kind: string) => list.filter((d) => d.kind === kind);
const worst = (list: DeliveryCost[], key: "overhead" | "total" | "notModified") =>
  Math.max(...list.map((d) => d[key]));

console.log("## The GitHub App: requests and time per delivery\n");
console.log(
  `An eleven-step release playbook (checkpoint, branch, two commits, two \`comment\` steps, labels, a pull request that waits for its merge, close) on an issue with ${r.comments.toLocaleString("en")} comments and ${r.finishedRuns} finished runs, through Probot's HTTP middleware with signed deliveries and installation tokens asked of the fake GitHub (nock; no network). Overhead: every request besides the step's effect, the run's one save and the answer people see (the reply, the final reaction). Floor: a delivery the app ignores (a bot's comment) through the same server, median ${fmt(floor)} ms.\n`,
);
console.log(
  table(
    [
      "delivery",
      "count",
      "requests (max)",
      "overhead (max)",
      "of which 304",
      "ms (median)",
      "× floor",
    ],
    ORDER.filter((k) => byKind(r.release, k).length).map((k) => {
      const list = byKind(r.release, k);
      const ms = median(list.map((d) => d.ms));
      return [
        k,
        String(list.length),
        String(worst(list, "total")),
        String(worst(list, "overhead")),
        String(worst(list, "notModified")),
        fmt(ms),
        fmtRatio(ms / floor),
      ];
    }),
  ),
);
const [merge] = r.afterRestart;
const total = r.release.reduce((n, d) => n + d.total, 0);
const overhead = r.release.reduce((n, d) => n + d.overhead, 0);
console.log(
  `\nThe run before the restart: ${total} requests over ${r.release.length} deliveries, ${overhead} of them overhead (at most ${worst(r.release, "overhead")} per delivery). The same /approve on an issue with no history: ${r.freshApprove.total} requests, ${r.freshApprove.overhead} overhead.`,
);
if (merge)
  console.log(
    `\nFirst delivery after the restart (the merge): ${merge.total} requests — ${merge.tokens} installation token, the thread's first and last pages (the newest status comment's sealed index names the open runs), the playbooks and the check that the run's commit is on the default branch; the deliveries after it: at most ${worst(r.afterRestart.slice(1), "overhead")} overhead. Installation tokens in the whole scenario: ${r.tokensIssued} (one per process).`,
  );
