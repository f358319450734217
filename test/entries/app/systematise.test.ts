import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { load } from "js-yaml";
import type { FakeGitHub } from "../../helpers/fake-github.js";
import { checkPlaybookText } from "../../../src/core/systematise/index.js";
import { SHIP } from "./fixtures.js";
import { BRANCH, type Harness, startApp } from "./harness.js";
import type { AiAdapter } from "../../../src/runtime/ai.js";

let fake: FakeGitHub;
let h: Harness;

const bodies = () => [...fake.comments.values()].map((c) => c.body);
const reactionsTo = (id: number) =>
  fake.reactions.filter((r) => r.commentId === id).map((r) => r.content);
const appPulls = () => [...fake.pulls.values()].filter((p) => p.user.login === fake.botLogin);

beforeEach(async () => {
  ({ fake, h } = await startApp(
    { ".github/playbooks/ship.yaml": SHIP },
    { alice: "write", carol: "maintain", bob: "read" },
  ));
});
afterEach(() => fake.uninstall());

describe("/systematise <id>", () => {
  /** An incident worked by hand: notes, findings, a fix merged after review. */
  async function incident(): Promise<void> {
    fake.openIssue("Disk full on db-1", "", "alice", ["db", "disk"]);
    await h.comment(1, "alice", "/note paged: db-1 disk above 95%");
    await h.comment(1, "alice", "/record disk_pct=97 volume=wal");
    await h.comment(1, "carol", "/note rotated the WAL archive by hand");
    fake.pushAs("fix-wal", "Rotate WAL daily", { "ops/wal.sh": "rotate daily" });
    const fix = fake.openPullAs("carol", "fix-wal", "Rotate the WAL archive daily", "Fixes #1");
    fix.approvedBy = ["alice"];
    fix.files = ["ops/wal.sh"];
    fake.closePull(fix.number, true);
  }

  it("drafts a playbook that validates and proposes it in a pull request, never merged", async () => {
    await incident();
    await h.comment(1, "alice", "/systematise disk-full");
    const pr = appPulls().find((p) => p.head === "playbook-bot/systematise-disk-full");
    expect(pr).toBeDefined();
    expect(pr!.state).toBe("open");
    expect(pr!.title).toBe("Playbook disk-full, drafted from #1");
    expect(pr!.body).toContain("Playbook Bot never merges it");
    const text = fake.fileAt(pr!.head, ".github/playbooks/disk-full.yml");
    expect(text).toBeDefined();
    // The draft validates with every layer, and holds what the issue showed.
    const checked = checkPlaybookText(".github/playbooks/disk-full.yml", text!, {});
    expect(checked.ok).toBe(true);
    const doc = load(text!) as {
      id: string;
      steps: { id: string; type: string; expected_findings?: string[] }[];
      tests: unknown[];
    };
    expect(doc.id).toBe("disk-full");
    expect(doc.steps.map((s) => s.type)).toEqual(
      expect.arrayContaining(["investigate", "branch", "commit", "pull_request", "end"]),
    );
    expect(doc.steps.find((s) => s.type === "investigate")?.expected_findings).toEqual([
      "disk_pct",
      "volume",
    ]);
    expect(doc.tests.length).toBeGreaterThan(0);
    // The default branch is untouched: nothing is merged.
    expect(fake.fileAt(BRANCH, ".github/playbooks/disk-full.yml")).toBeUndefined();
    const reply = bodies().at(-1)!;
    expect(reply).toContain(`Drafted the playbook \`disk-full\` from this issue: #${pr!.number}`);
  });

  it("proposes once however often GitHub redelivers, and again in the same pull request", async () => {
    await incident();
    fake.postAs(1, "alice", "/systematise disk-full");
    const ev = h.takeEvent()!;
    const id = await h.deliver("issue_comment", h.commentPayload(ev));
    await h.deliver("issue_comment", h.commentPayload(ev), id);
    expect(appPulls()).toHaveLength(1);
    await h.comment(1, "alice", "/record cause=no_rotation");
    await h.comment(1, "alice", "/systematise disk-full");
    expect(appPulls()).toHaveLength(1);
    expect(
      fake.fileAt("playbook-bot/systematise-disk-full", ".github/playbooks/disk-full.yml"),
    ).toContain("cause");
  });

  it("refuses an id that exists, an issue with nothing to learn from, and people without access", async () => {
    fake.openIssue("Nothing here", "", "alice");
    await h.comment(1, "alice", "/systematise ship");
    expect(bodies().at(-1)).toContain("a playbook 'ship' exists here");
    await h.comment(1, "alice", "/systematise empty");
    expect(bodies().at(-1)).toMatch(/^> \/systematise empty\n\n👎 /);
    const bobs = await h.comment(1, "bob", "/systematise x");
    expect(reactionsTo(bobs)).toEqual(["eyes", "-1"]);
    expect(appPulls()).toEqual([]);
  });
});

describe("/systematise with an AI provider", () => {
  it("takes the draft's seams and wording from the model, never its structure", async () => {
    const asked: string[] = [];
    const ai: AiAdapter = {
      name: "test-model",
      async *invoke(prompt) {
        asked.push(prompt);
        yield {
          type: "text",
          text: [
            "Here is the wording.",
            "```json",
            JSON.stringify({
              investigations: [{ id: "measure-disk", findings: ["disk_pct", "inode_pct"] }],
              name: "Database disk full",
              description: "Free space on a database volume that filled up.",
              steps: { "measure-disk": { description: "Measure the volume." } },
              entrypoint: "rm-rf",
            }),
            "```",
          ].join("\n"),
        };
        yield { type: "done" };
      },
    };
    h.ai = ai;
    await h.start();
    fake.openIssue("Disk full on db-1", "", "alice", ["db"]);
    await h.comment(1, "alice", "/record disk_pct=97");
    await h.comment(1, "alice", "/note inodes too");
    await h.comment(1, "alice", "/record inode_pct=99");
    await h.comment(1, "alice", "/systematise disk-full");
    expect(asked).toHaveLength(1);
    // The model sees the draft's two investigations, in the order they were recorded.
    expect(asked[0]).toContain("- check-disk_pct (investigate): disk_pct");
    expect(asked[0]).toContain("- check-inode_pct (investigate): inode_pct");
    expect(asked[0]).toContain("Keep every finding of the draft in the order shown");
    const pr = appPulls().find((p) => p.head === "playbook-bot/systematise-disk-full")!;
    const text = fake.fileAt(pr.head, ".github/playbooks/disk-full.yml")!;
    const doc = load(text) as Record<string, unknown> & {
      steps: { id: string; type: string; description: string; expected_findings?: string[] }[];
    };
    const investigations = doc.steps.filter((s) => s.type === "investigate");
    expect(investigations).toEqual([
      {
        id: "measure-disk",
        type: "investigate",
        description: "Measure the volume.",
        expected_findings: ["disk_pct", "inode_pct"],
      },
    ]);
    expect(pr.body).toContain("Findings grouped into 1 investigation as the AI adapter proposed");
    expect(doc.name).toBe("Database disk full");
    expect(doc.description).toBe("Free space on a database volume that filled up.");
    expect(doc.entrypoint).toBeUndefined();
    expect(checkPlaybookText(".github/playbooks/disk-full.yml", text, {}).ok).toBe(true);
  });
});

describe("/systematise on an issue a playbook ran on", () => {
  it("proposes dropping an approval every run gave, as a change of the playbook's file", async () => {
    let n = 0;
    for (let i = 1; i <= 3; i++) {
      n = fake.openIssue(`Ship ${i}`, "", "alice").number;
      await h.label(n, "playbook:ship", "alice");
      await h.drain();
      await h.comment(n, "carol", "/approve");
      const pr = appPulls().find((p) => p.head === `playbook/ship-${n}`)!;
      await h.closePull(pr.number, true);
      await h.drain();
    }
    await h.comment(n, "alice", "/systematise");
    const change = appPulls().find((p) => p.head === "playbook-bot/improve-ship");
    expect(change, bodies().at(-1)).toBeDefined();
    const text = fake.fileAt(change!.head, ".github/playbooks/ship.yaml")!;
    expect(text).not.toContain("type: checkpoint");
    expect(checkPlaybookText(".github/playbooks/ship.yaml", text, {}).ok).toBe(true);
    expect(bodies().at(-1)).toMatch(/change\(s\)\*\* to `ship` proposed in #\d+/);
  });

  it("says there is nothing to propose from a single run", async () => {
    fake.openIssue("Ship once", "", "alice");
    await h.label(1, "playbook:ship", "alice");
    await h.drain();
    await h.comment(1, "alice", "/systematise");
    expect(bodies().at(-1)).toMatch(
      /Nothing to propose for `ship`|No change of `ship` is proposed/,
    );
    expect(appPulls().filter((p) => p.head.startsWith("playbook-bot/"))).toEqual([]);
  });
});
