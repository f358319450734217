import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { FakeGitHub } from "../../helpers/fake-github.js";
import { SHIP } from "./fixtures.js";
import { CONFIG, INSTALLATION_ID, type Harness, startApp } from "./harness.js";
import { runCli } from "../../helpers/cli.js";

let fake: FakeGitHub;
let h: Harness;

const bodies = () => [...fake.comments.values()].map((c) => c.body);
const reactionsTo = (id: number) =>
  fake.reactions.filter((r) => r.commentId === id).map((r) => r.content);
/** The export in a /trace reply's code block. */
function exported(body: string | undefined): Record<string, unknown> {
  const m = /^(`{3,})json\n([\s\S]*?)\n\1$/m.exec(body ?? "");
  if (!m) throw new Error(`no export in ${body}`);
  return JSON.parse(m[2]!) as Record<string, unknown>;
}

beforeEach(async () => {
  ({ fake, h } = await startApp(
    { ".github/playbooks/ship.yaml": SHIP },
    { alice: "write", carol: "maintain", bob: "read" },
  ));
  fake.openIssue("Ship it", "", "alice");
});
afterEach(() => {
  vi.unstubAllEnvs();
  fake.uninstall();
});

type Doc = {
  format: string;
  trace_id: string | null;
  runs: { run_id: string; playbook: string; status: string }[];
  records: {
    event: string;
    actor: string;
    step?: string;
    tool?: string;
    outcome: string;
    authority: { claim: string; granted: boolean };
    outputs?: string;
    detail?: string;
  }[];
};

describe("/trace", () => {
  it("replies with the issue's whole trace: its runs and its work by hand", async () => {
    await h.comment(1, "alice", "/note looked at the release notes first");
    await h.comment(1, "alice", "/run ship");
    await h.comment(1, "carol", "/approve");
    await h.comment(1, "alice", "/trace");
    const reply = bodies().at(-1);
    expect(reply).toMatch(/^\*\*Trace of this issue\*\* — 2 runs, \d+ records\./);
    expect(reply).toContain("`npx playbook-bot trace Codertocat/Hello-World#1`");
    const doc = exported(reply) as unknown as Doc;
    expect(doc.format).toBe("playbook-bot-trace/v1");
    // Two traces: the run's and the issue's work by hand.
    expect(doc.trace_id).toBeNull();
    expect(doc.runs.map((r) => [r.playbook, r.status])).toEqual([
      ["(work by hand)", "recorded"],
      ["ship", "waiting"],
    ]);
    const events = doc.records.map((r) => `${r.event} ${r.actor} ${r.step ?? ""}`.trim());
    expect(events[0]).toBe("/note alice");
    expect(events).toContain("/approve carol approve");
    const approve = doc.records.find((r) => r.event === "/approve")!;
    expect(approve.authority).toMatchObject({ claim: "maintain", granted: true });
    expect(doc.records.some((r) => r.tool === "git")).toBe(true);
    // Values are digests, never the text.
    const note = doc.records.find((r) => r.event === "/note")!;
    expect(note.outputs).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(JSON.stringify(doc)).not.toContain("release notes");
  });

  it("exports OTLP/JSON, and refuses other formats and people without triage access", async () => {
    await h.comment(1, "alice", "/run ship");
    await h.comment(1, "alice", "/trace otlp");
    const otlp = exported(bodies().at(-1)) as {
      resourceSpans: { scopeSpans: { spans: { traceId: string; name: string }[] }[] }[];
    };
    const spans = otlp.resourceSpans[0]!.scopeSpans[0]!.spans;
    expect(spans.length).toBeGreaterThan(1);
    expect(spans.every((s) => /^[0-9a-f]{32}$/.test(s.traceId))).toBe(true);
    await h.comment(1, "alice", "/trace yaml");
    expect(bodies().at(-1)).toBe(
      "> /trace yaml\n\n👎 name a format: `/trace` (JSON) or `/trace otlp`",
    );
    const bobs = await h.comment(1, "bob", "/trace");
    expect(reactionsTo(bobs)).toEqual(["eyes", "-1"]);
  });

  it("keeps what was refused before any run saw it, once however often it is redelivered", async () => {
    fake.postAs(1, "bob", "/approve");
    const ev = h.takeEvent()!;
    const id = await h.deliver("issue_comment", h.commentPayload(ev));
    await h.deliver("issue_comment", h.commentPayload(ev), id);
    await h.comment(1, "alice", "/aprove <!-- x --> @carol");
    await h.label(1, "playbook:ship", "bob");
    await h.comment(1, "alice", "/trace");
    const reply = bodies().at(-1)!;
    const doc = exported(reply) as unknown as Doc;
    expect(doc.runs).toEqual([
      expect.objectContaining({ run_id: "refused-1", playbook: "(refused before a run)" }),
    ]);
    expect(
      doc.records.map((r) => [r.event, r.actor, r.authority.claim, r.authority.granted, r.outcome]),
    ).toEqual([
      ["/approve", "bob", "read", false, "refused"],
      ["/aprove", "alice", "write", false, "refused"],
      ["label playbook:ship", "bob", "read", false, "refused"],
    ]);
    expect(doc.records.map((r) => r.detail)).toEqual([
      "nothing on this issue waits for /approve",
      expect.stringContaining("is not a command"),
      "starting ship needs triage access or more",
    ]);
    expect(reply).not.toContain("<!-- x");
    expect(reply).not.toContain("@carol");
  });

  it("keeps what people wrote inert in the reply", async () => {
    await h.comment(1, "alice", "/run ship");
    await h.comment(1, "carol", "/reject ```` </details> @carol <!-- x");
    await h.comment(1, "alice", "/trace");
    const reply = bodies().at(-1)!;
    // The trace says what happened (rejected), not what people wrote: their text never reaches it.
    const doc = exported(reply) as unknown as Doc & { records: { detail?: string }[] };
    expect(doc.records.at(-1)).toMatchObject({
      event: "/reject",
      actor: "carol",
      outcome: "failure",
    });
    expect(reply).not.toContain("@carol");
    expect(reply).not.toContain("<!-- x");
    // One collapsed block for the table and one for the export: nothing closes them early.
    expect(reply.split("\n").filter((l) => l === "</details>")).toHaveLength(2);
  });
});

describe("playbook-bot trace owner/repo#n", () => {
  const ISSUE = "Codertocat/Hello-World#1";

  it("reads an issue's runs and work by hand from its thread, checking the seals", async () => {
    await h.comment(1, "alice", "/run ship");
    await h.comment(1, "carol", "/approve");
    await h.comment(1, "alice", "/note branch looks fine");
    vi.stubEnv("GITHUB_TOKEN", "ghs_test");
    vi.stubEnv("STATE_SECRET", CONFIG.stateSecret);
    const r = await runCli(["trace", ISSUE, "--installation", String(INSTALLATION_ID)]);
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.out) as Doc;
    expect(doc.runs.map((x) => x.playbook)).toEqual(["ship", "(work by hand)"]);
    expect(doc.records.map((x) => x.event)).toEqual(
      expect.arrayContaining(["start", "/approve", "/note"]),
    );
    // With another installation the seals do not check: nothing is believed, and it says so.
    const wrong = await runCli(["trace", ISSUE, "--installation", "99", "--format", "otlp"]);
    expect(wrong.code).toBe(0);
    expect(wrong.err).toMatch(/2 block\(s\) left out: their seal or their form does not check/);
    expect(JSON.parse(wrong.out)).toMatchObject({
      resourceSpans: [{ scopeSpans: [{ spans: [] }] }],
    });
  });

  it("reads the blocks unverified without STATE_SECRET, says so, and never reads a person's paste", async () => {
    await h.comment(1, "alice", "/run ship");
    const status = fake.statusComments(1)[0]!;
    // A person pastes the status comment: it is not the app's, so it is not read.
    fake.postAs(1, "alice", status.body);
    vi.stubEnv("GITHUB_TOKEN", "ghs_test");
    vi.stubEnv("STATE_SECRET", "");
    const r = await runCli(["trace", ISSUE]);
    expect(r.code).toBe(0);
    expect(r.err).toContain("read without checking their seals");
    expect((JSON.parse(r.out) as Doc).runs).toHaveLength(1);
  });

  it("needs a token, and says what GitHub answered", async () => {
    vi.stubEnv("GITHUB_TOKEN", "");
    vi.stubEnv("GH_TOKEN", "");
    const none = await runCli(["trace", ISSUE]);
    expect(none.code).toBe(1);
    expect(none.err).toContain("needs a token: set GITHUB_TOKEN");
    vi.stubEnv("GITHUB_TOKEN", "ghs_test");
    const missing = await runCli(["trace", "Codertocat/Nope#1"]);
    expect(missing.code).toBe(1);
    expect(missing.err).toMatch(/cannot read Codertocat\/Nope#1 \(GitHub answered 404\)/);
  });
});
