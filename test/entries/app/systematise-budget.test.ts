import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { FakeGitHub } from "../../helpers/fake-github.js";
import { SHIP } from "./fixtures.js";
import { type Harness, startApp } from "./harness.js";
import { REPLY_BUDGET } from "../../../src/runtime/run-service/controller.js";

let fake: FakeGitHub;
let h: Harness;

const appPulls = () => [...fake.pulls.values()].filter((p) => p.user.login === fake.botLogin);
const appComments = () => [...fake.comments.values()].filter((c) => c.performed_via_github_app);

beforeEach(async () => {
  ({ fake, h } = await startApp({ ".github/playbooks/ship.yaml": SHIP }, { alice: "write" }));
  fake.openIssue("Disk full on db-1", "", "alice", ["db", "disk"]);
  await h.comment(1, "alice", "/record disk_pct=97 volume=wal");
});
afterEach(() => fake.uninstall());

describe("/systematise within the reply budget", () => {
  it("one comment of ten /systematise lines opens one pull request and stays in the budget", async () => {
    const before = appComments().length;
    const lines = Array.from({ length: 10 }, (_, i) => `/systematise disk-full-${i}`);
    await h.comment(1, "alice", lines.join("\n"));
    expect(appPulls()).toHaveLength(1);
    expect(appPulls()[0]?.head).toBe("playbook-bot/systematise-disk-full-0");
    // Its answer and the refusals that followed are within the commenter's reply budget.
    const written = appComments().slice(before);
    expect(written.length).toBeLessThanOrEqual(REPLY_BUDGET.count);
    expect(written.some((c) => c.body.includes("one /systematise per comment"))).toBe(true);
  });

  it("opens no pull request once the commenter's reply budget is spent", async () => {
    for (let i = 0; i < REPLY_BUDGET.count; i++) await h.comment(1, "alice", "/help");
    const before = appComments().length;
    await h.comment(1, "alice", "/systematise disk-full");
    expect(appPulls()).toHaveLength(0);
    expect(appComments().length).toBe(before);
  });
});
