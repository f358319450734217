import { request } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import type { FakeGitHub } from "../../helpers/fake-github.js";
import { example, installedRepository, makeClock, readStatus } from "./harness.js";
import { ServedHarness } from "./served.js";
import { ALERT_TOKEN, ALERTS_CONFIG, notification } from "./alert-scenario.js";
import { ALERT_LABEL, alertMarker } from "../../../src/runtime/alert-triage.js";
import { SHIP } from "./fixtures.js";

/** Only admins may run it; its branch step fails while GitHub refuses new refs. */
const ADMIN_BRANCH = `apiVersion: playbook-bot/v1
id: rotate
name: Rotate
description: Makes a branch with the rotated credentials.
permissions: { run: admin }
steps:
  - id: branch
    type: branch
    name: playbook/rotate-{{ issue.number }}
  - id: done
    type: end
    status: success
`;

/** Anyone may run it (permissions.run: read). */
const OPEN = `apiVersion: playbook-bot/v1
id: hello
name: Hello
description: Says hello.
permissions: { run: read }
steps:
  - id: say
    type: comment
    body: Hello.
  - id: done
    type: end
    status: success
`;

/** Started by a new issue whose text fits it (on.issues). */
const SLOW = `apiVersion: playbook-bot/v1
id: slow
on:
  issues:
    signals:
      positive: [{ pattern: slow, weight: 2 }]
    min_score: 2
steps:
  - { id: say, type: comment, body: Looking. }
  - { id: done, type: end }
`;

let fake: FakeGitHub;
let h: ServedHarness;
afterEach(async () => {
  await h?.stop();
  fake.uninstall();
});

async function served(): Promise<ServedHarness> {
  const clock = makeClock();
  fake = installedRepository(
    {
      ".github/playbooks/rotate.yaml": ADMIN_BRANCH,
      ".github/playbooks/hello.yaml": OPEN,
      ".github/playbooks/ship.yaml": SHIP,
    },
    { ada: "admin", tom: "triage", wes: "write", bob: "read", carol: "maintain" },
    clock,
  );
  h = new ServedHarness(fake, clock);
  h.alerts = ALERTS_CONFIG;
  await h.start();
  fake.openIssue("credentials leaked", "", "tom");
  return h;
}

const runs = () =>
  fake.statusComments(1).map((c) => {
    const read = readStatus(c);
    if (!read.ok) throw new Error(read.detail);
    return read.run;
  });

describe("attacks on the served app", () => {
  /** GitHub's `issues.opened` of an issue opened with labels (an issue form's, say). */
  const openedWith = (number: number, by: string) => {
    const p = example("issues", "opened");
    const issue = h.issuePayload(number);
    p.issue = {
      ...issue,
      labels: (issue.labels as { name: string }[]).map(({ name }) => ({ name })),
    };
    p.sender = fake.user(by);
    return p;
  };

  for (const order of ["opened first", "labeled first"] as const)
    it(`an issue opened with a playbook's label starts it once (${order})`, async () => {
      await served();
      const issue = fake.openIssue("from a form", "", "tom", ["playbook:hello"]);
      // GitHub sends both for a label set at creation.
      const deliveries = [
        () => h.deliver("issues", openedWith(issue.number, "tom")),
        () => h.deliver("issues", h.labeledPayload(issue.number, "playbook:hello", "tom")),
      ];
      if (order === "labeled first") deliveries.reverse();
      for (const d of deliveries) {
        await d();
        await h.drain();
      }
      expect(fake.statusComments(issue.number)).toHaveLength(1);
      expect([...fake.comments.values()].filter((c) => c.body.startsWith("Hello."))).toHaveLength(
        1,
      );
    });

  it("an outsider's issue opened with a playbook's label is answered once", async () => {
    await served();
    const issue = fake.openIssue("from a form", "", "bob", ["playbook:rotate"]);
    await h.deliver("issues", openedWith(issue.number, "bob"));
    await h.deliver("issues", h.labeledPayload(issue.number, "playbook:rotate", "bob"));
    await h.drain();
    const notices = [...fake.comments.values()].filter(
      (c) => c.issue === issue.number && c.body.startsWith("Label `playbook:rotate` did not start"),
    );
    expect(notices).toHaveLength(1);
    expect(fake.statusComments(issue.number)).toEqual([]);
  });

  for (const change of ["deleted", "edited"] as const)
    it(`an /approve ${change} before its creation's delivery is handled does not approve`, async () => {
      await served();
      await h.comment(1, "tom", "/run ship");
      await h.drain();
      const vote = fake.postAs(1, "carol", "/approve");
      const created = fake.events.shift();
      if (!created) throw new Error("no created event");
      // The creation's delivery failed and is retried later; the change's comes first.
      if (change === "deleted") fake.deleteAs(vote.id);
      else fake.editAs(vote.id, "/approve\n\nOn second thought: no, not yet.", "wes");
      await h.drain();
      await h.deliver("issue_comment", h.commentPayload(created));
      await h.drain();
      expect(runs()[0]?.stack[0]?.current).toBe("approve");
      expect(runs()[0]?.stack[0]?.votes).toEqual([]);
      expect(fake.branches()).toEqual(["master"]);
    });

  it("a signed label delivery sent again under a new delivery id starts nothing more", async () => {
    await served();
    const hellos = () => [...fake.comments.values()].filter((c) => c.body.startsWith("Hello."));
    for (let i = 0; i < 10; i++) fake.now(); // well after the opening
    await h.label(1, "playbook:hello", "tom");
    const signed = h.delivered.at(-1)?.payload;
    if (!signed) throw new Error("no label delivered");
    await h.drain();
    // Whoever holds the signed body (a proxy's log, say) posts it again: the id is an unsigned header.
    await h.deliver("issues", structuredClone(signed), "4c9a0f2e-0000-4000-8000-000000000001");
    await h.drain();
    expect(fake.statusComments(1)).toHaveLength(1);
    expect(hellos()).toHaveLength(1);
    // The label added again later is a new label: it runs again.
    await h.label(1, "playbook:hello", "tom");
    await h.drain();
    expect(hellos()).toHaveLength(2);
  });

  it("a signed issues.opened sent again under a new delivery id starts its on.issues run once", async () => {
    const clock = makeClock();
    fake = installedRepository({ ".github/playbooks/slow.yaml": SLOW }, { wes: "write" }, clock);
    h = new ServedHarness(fake, clock);
    await h.start();
    const issue = fake.openIssue("Checkout is slow", "request_id: abc timed out", "wes");
    const p = example("issues", "opened");
    p.issue = { ...h.issuePayload(issue.number), author_association: "COLLABORATOR" };
    p.sender = fake.user("wes");
    await h.deliver("issues", p);
    await h.drain();
    await h.deliver("issues", structuredClone(p), "4c9a0f2e-0000-4000-8000-000000000002");
    await h.drain();
    expect(fake.statusComments(issue.number)).toHaveLength(1);
  });

  it("a triage user's /retry of an admin-only run is refused", async () => {
    await served();
    fake.fault = ({ method, path }) =>
      method === "POST" && path.includes("/git/refs") ? { status: 500 } : undefined;
    await h.comment(1, "ada", "/run rotate");
    await h.drain();
    expect(runs()[0]?.status).toBe("failed");
    fake.fault = undefined;
    await h.comment(1, "tom", "/retry");
    await h.drain();
    expect(fake.branches()).toEqual(["master"]);
    expect(runs()[0]?.status).toBe("failed");
  });

  it("an outsider's runs come out of their reply budget", async () => {
    await served();
    for (let i = 0; i < 6; i++) await h.comment(1, "bob", "/run hello");
    await h.drain();
    // Five per issue per 10 minutes.
    expect(fake.statusComments(1)).toHaveLength(5);
  });

  it("a maintainer's /approve that GitHub shows as code approves nothing", async () => {
    await served();
    await h.comment(1, "tom", "/run ship");
    // A fence closes only on its marks alone; `<!--` in a code span hides no fence.
    await h.comment(1, "carol", "To approve, write:\n\n```\n``` then\n/approve\n```\n");
    await h.comment(1, "carol", "`<!--`\n```\n`-->`\n/approve\n```\n");
    await h.comment(1, "carol", "- ```\n  /approve\n  ```\n<pre>\n/approve\n</pre>\n");
    expect(runs()[0]?.stack[0]?.current).toBe("approve");
    expect(runs()[0]?.stack[0]?.votes).toEqual([]);
    expect(fake.branches()).toEqual(["master"]);
  });

  it("a /run whose answer would be longer than GitHub takes is answered shortly; the issue goes on", async () => {
    await served();
    // GitHub refuses a comment body past 65,536 characters.
    fake.fault = ({ method, path, body }) =>
      method === "POST" &&
      path.endsWith("/comments") &&
      String((body as { body?: string } | undefined)?.body ?? "").length > 65_536
        ? { status: 422, body: { message: "Validation Failed" } }
        : undefined;
    // 3,000 unknown inputs: each is named in the answer, and the line is quoted.
    const line = `/run hello ${Array.from({ length: 3000 }, (_, i) => `k${i}=v`).join(" ")}`;
    const asked = await h.comment(1, "wes", line);
    const answers = [...fake.comments.values()].filter((c) => c.id > asked);
    expect(answers.map((c) => c.body.length).every((n) => n < 65_536)).toBe(true);
    expect(answers.some((c) => c.body.includes("more than GitHub takes in a comment"))).toBe(true);
    expect(fake.reactions.filter((r) => r.commentId === asked).map((r) => r.content)).toEqual([
      "eyes",
      "-1",
    ]);
    await h.comment(1, "wes", "/run hello");
    expect(fake.statusComments(1)).toHaveLength(1);
  });

  it("one outsider comment with ten /run lines starts one run", async () => {
    await served();
    await h.comment(1, "bob", Array.from({ length: 10 }, () => "/run hello").join("\n"));
    await h.drain();
    expect(fake.statusComments(1).length).toBe(1);
  });
});

describe("an outsider's issue form carrying many playbook labels", () => {
  it("starts no more runs than their reply budget allows", async () => {
    const clock = makeClock();
    const files: Record<string, string> = {};
    for (let i = 0; i < 7; i++)
      files[`.github/playbooks/hello${i}.yaml`] = OPEN.replace("id: hello", `id: hello${i}`);
    fake = installedRepository(files, { bob: "read", tom: "triage" }, clock);
    h = new ServedHarness(fake, clock);
    await h.start();
    // The form sets seven labels; GitHub sends each labeled event with its author as sender.
    const labels = Array.from({ length: 7 }, (_, i) => `playbook:hello${i}`);
    const issue = fake.openIssue("from a form", "", "bob", labels);
    for (const l of labels) await h.deliver("issues", h.labeledPayload(issue.number, l, "bob"));
    await h.drain();
    // Five per issue per 10 minutes, as for their /run.
    expect(fake.statusComments(issue.number)).toHaveLength(5);
    // Someone with a role above read is not held to it.
    await h.label(issue.number, "playbook:hello6", "tom");
    await h.drain();
    expect(fake.statusComments(issue.number)).toHaveLength(6);
  });

  it("is told of labels it may not use within the same budget", async () => {
    const clock = makeClock();
    const files: Record<string, string> = {};
    for (let i = 0; i < 7; i++)
      files[`.github/playbooks/admin${i}.yaml`] = OPEN.replace(
        "id: hello",
        `id: admin${i}`,
      ).replace("run: read", "run: admin");
    fake = installedRepository(files, { bob: "read" }, clock);
    h = new ServedHarness(fake, clock);
    await h.start();
    const labels = Array.from({ length: 7 }, (_, i) => `playbook:admin${i}`);
    const issue = fake.openIssue("from a form", "", "bob", labels);
    for (const l of labels) await h.deliver("issues", h.labeledPayload(issue.number, l, "bob"));
    await h.drain();
    expect(fake.statusComments(issue.number)).toHaveLength(0);
    const notices = [...fake.comments.values()].filter(
      (c) => c.issue === issue.number && c.body.includes("needs admin"),
    );
    expect(notices).toHaveLength(5);
  });
});

/** A POST to the served app's alert route whose body is sent in part, then held open. */
function heldAlert(
  port: number,
  declared: number,
  sent: number,
): Promise<{ status: number; body: string; req: ReturnType<typeof request> }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        path: "/alerts/alertmanager",
        method: "POST",
        headers: { "content-type": "application/json", "content-length": String(declared) },
      },
      (res) => {
        let body = "";
        res.on("data", (c: Buffer) => (body += c.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body, req }));
      },
    );
    req.on("error", reject);
    req.write("x".repeat(sent));
  });
}

describe("hostile alert senders, without credentials", () => {
  it("a body that never ends is answered 408, not held", async () => {
    await served();
    h.alerts = { ...ALERTS_CONFIG, bodyTimeoutMs: 300 };
    await h.start();
    const started = Date.now();
    const r = await heldAlert(h.port(), 5000, 10);
    expect(r.status).toBe(408);
    expect(Date.now() - started).toBeLessThan(5000);
    r.req.destroy();
  });

  it("bodies held at once past the budget are answered 503", async () => {
    await served();
    h.alerts = { ...ALERTS_CONFIG, maxUnverifiedBytes: 4096, bodyTimeoutMs: 2000 };
    await h.start();
    const first = heldAlert(h.port(), 3000, 2999);
    await new Promise((r) => setTimeout(r, 100));
    const second = await heldAlert(h.port(), 3000, 10);
    expect(second.status).toBe(503);
    second.req.destroy();
    expect((await first).status).toBe(408);
  });
});

describe("hostile triage users against alerts", () => {
  it("an issue of theirs carrying an alert's marker and label is not taken for the alert's issue", async () => {
    await served();
    const fingerprint = "00000000000decoy";
    // A triage user plants an issue for a predictable alert key and closes it as not planned.
    const decoy = fake.openIssue(
      "nothing to see",
      `all quiet\n\n${alertMarker(`alertmanager:${fingerprint}`)}\n`,
      "tom",
      [ALERT_LABEL],
    );
    decoy.state = "closed";
    decoy.state_reason = "not_planned";
    const res = await h.postAlert("alertmanager", notification([fingerprint]), {
      authorization: `Bearer ${ALERT_TOKEN}`,
    });
    expect(res.status).toBe(200);
    await h.drain();
    // The alert opens its own issue (and its run), and the decoy is left alone.
    const opened = [...fake.issues.values()].filter((i) => i.user.login === fake.botLogin);
    expect(opened).toHaveLength(1);
    expect(fake.statusComments(opened[0]?.number ?? 0)).toHaveLength(1);
    expect([...fake.comments.values()].filter((c) => c.issue === decoy.number)).toEqual([]);
    expect(decoy.state).toBe("closed");
  });
});

describe("a fork's pull request against GitHub's code scanning alerts", () => {
  /** GitHub's `code_scanning_alert` of alert 7, on a ref. */
  const scanning = (action: string, ref: string, state: string) => {
    const p = example("code_scanning_alert", action === "created" ? "created" : "fixed");
    p.action = action;
    p.ref = ref;
    (p.alert as { number: number; state: string }).number = 7;
    (p.alert as { state: string }).state = state;
    return p;
  };
  const alertIssues = () => [...fake.issues.values()].filter((i) => i.labels.includes(ALERT_LABEL));

  it("an alert only in a pull request's merge ref opens nothing; one there 'fixed' resolves nothing", async () => {
    await served();
    // CodeQL runs on a fork's pull request: the alert exists only in its merge ref.
    await h.deliver("code_scanning_alert", scanning("created", "refs/pull/7/merge", "open"));
    await h.drain();
    expect(alertIssues()).toEqual([]);
    // The same rule fires on the default branch: a triage issue.
    await h.deliver("code_scanning_alert", scanning("created", "refs/heads/master", "open"));
    await h.drain();
    expect(alertIssues()).toHaveLength(1);
    const issue = alertIssues()[0]?.number ?? 0;
    const said = () => [...fake.comments.values()].filter((c) => c.issue === issue).length;
    const before = said();
    // The fork's pull request removes the code: "fixed" in its merge ref, never merged.
    await h.deliver("code_scanning_alert", scanning("fixed", "refs/pull/7/merge", "fixed"));
    await h.drain();
    expect(said()).toBe(before);
    expect(alertIssues()[0]?.state).toBe("open");
  });
});
