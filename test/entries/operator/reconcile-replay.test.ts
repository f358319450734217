import { afterEach, describe, expect, it } from "vitest";
import {
  commentsWith,
  noteOf,
  OperatorBench,
  operatorRepo,
  waitFor,
} from "../../helpers/replicas.js";

/**
 * A command whose delivery GitHub never sent is found by the reconcile sweep of a real `npm start`
 * and replayed: the run completes with no person's help, and even at LOG_LEVEL=debug no line of
 * the log carries the replayed payload (an issue's or a comment's text is people's data).
 */
let bench: OperatorBench | undefined;
afterEach(async () => {
  await bench?.stop();
  bench = undefined;
});

describe("operator: the reconcile sweep replays a command nobody delivered", () => {
  it("replays a lost /approve: the run completes, and the debug log holds no payload", async () => {
    bench = await OperatorBench.start({
      fakes: operatorRepo(),
      replicas: 1,
      env: { LOG_LEVEL: "debug", RECONCILE_INTERVAL: "10" },
    });
    const b = bench;
    const marker = `private-title-${Date.now().toString(36)}`;
    const issue = b.openIssue(`Approve ${marker}`).number;
    await b.label(issue, "playbook:approve-comment", "alice");
    await waitFor("the checkpoint to be announced", () => b.announced(issue), {
      timeoutMs: 60_000,
    });
    await b.settled();

    // The command is written, and its delivery lost (GitHub's, say, to a replica that was down).
    b.forwardEvents = false;
    b.fake.postAs(issue, "carol", "/approve");
    b.fake.events.splice(0);
    b.forwardEvents = true;
    const since = Date.now();
    await waitFor("the run to complete", () => b.runOf(issue)?.status === "completed", {
      timeoutMs: 90_000,
      everyMs: 200,
    });
    await b.settled();
    process.stderr.write(
      `a lost /approve replayed by the sweep: completed in ${Date.now() - since} ms\n`,
    );

    expect(commentsWith(b.fake, issue, noteOf(issue))).toHaveLength(1);
    const logs = b.logs();
    expect(logs.some((l) => /reconcile: .*replaying/.test(String(l.msg)))).toBe(true);
    // Debug lines were written (the level holds), none of them with the payload.
    expect(logs.some((l) => l.level === 20)).toBe(true);
    expect(logs.filter((l) => JSON.stringify(l).includes(marker))).toEqual([]);
  }, 150_000);
});
