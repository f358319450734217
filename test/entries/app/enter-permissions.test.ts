import { afterEach, describe, expect, it } from "vitest";
import { FakeGitHub } from "../../helpers/fake-github.js";
import { Harness, installedRepository, makeClock, readStatus } from "./harness.js";

/** Only admins may run it: it is what a triage user must not reach through another playbook. */
const ADMIN_ONLY = `apiVersion: playbook-bot/v1
id: admin_only
name: Admin only
description: Rotates the production credentials.
permissions: { run: admin }
steps:
  - id: rotate
    type: investigate
    description: Rotate them.
    expected_findings: [rotated]
  - id: done
    type: end
    conclusion: rotated
`;

/** Anyone with triage access may run it; it delegates to the admin-only playbook. */
const DELEGATES = `apiVersion: playbook-bot/v1
id: gather
name: Gather
description: Delegates to the admin-only playbook.
steps:
  - id: sub
    type: playbook
    description: Run the admin-only playbook.
    playbook: admin_only
    mode: delegate
  - id: done
    type: end
    conclusion: gathered
`;

/** Anyone with triage access may run it; it hands off to the admin-only playbook. */
const HANDS_OFF = `apiVersion: playbook-bot/v1
id: passon
name: Pass on
description: Hands off to the admin-only playbook.
steps:
  - id: next
    type: playbook
    description: Go on with the admin-only playbook.
    playbook: admin_only
    mode: handoff
`;

/** A Mindscape HandoffPlan: one playbook delegating to each step's playbook, admin_only here. */
const PLAN = JSON.stringify({
  steps: [{ playbook_code: "admin_only", kind: "user_workflow", inputs: {} }],
  context: {},
  estimated_duration: 60,
});

let fake: FakeGitHub;
afterEach(() => fake.uninstall());

async function started(): Promise<Harness> {
  const clock = makeClock();
  fake = installedRepository(
    {
      ".github/playbooks/admin_only.yaml": ADMIN_ONLY,
      ".github/playbooks/gather.yaml": DELEGATES,
      ".github/playbooks/passon.yaml": HANDS_OFF,
      ".github/playbooks/rotate_plan.handoff.json": PLAN,
    },
    { erin: "triage", ada: "admin" },
    clock,
  );
  const h = await new Harness(fake, clock).start();
  fake.openIssue("credentials leaked", "", "erin");
  return h;
}

/** The runs on issue 1, as their status comments hold them. */
function runs() {
  return fake.statusComments(1).map((c) => {
    const read = readStatus(c);
    if (!read.ok) throw new Error(`status comment ${c.id} does not verify`);
    return read.run;
  });
}

describe("permissions.run of every playbook a run enters, through the app", () => {
  it("a triage user's delegate to an admin-only playbook fails with PB-PERMISSION", async () => {
    const h = await started();
    await h.comment(1, "erin", "/run gather");
    const [run] = runs();
    expect(run?.status).toBe("failed");
    expect(run?.error?.code).toBe("PB-PERMISSION");
    expect(run?.error?.message).toBe(
      "@erin (triage) may not run playbook 'admin_only': it needs admin access or more",
    );
    // The child was never entered.
    expect(run?.stack.map((f) => f.playbook)).toEqual(["gather"]);
    expect(fake.statusComments(1)[0]?.body).toContain("PB-PERMISSION");
  });

  it("an admin's delegate enters it", async () => {
    const h = await started();
    await h.comment(1, "ada", "/run gather");
    const [run] = runs();
    expect(run?.error).toBeUndefined();
    expect(run?.stack.map((f) => f.playbook)).toEqual(["gather", "admin_only"]);
  });

  it("a triage user's handoff to an admin-only playbook fails and starts no run", async () => {
    const h = await started();
    await h.comment(1, "erin", "/run passon");
    const all = runs();
    expect(all).toHaveLength(1);
    expect(all[0]?.status).toBe("failed");
    expect(all[0]?.error?.code).toBe("PB-PERMISSION");
    expect(all.some((r) => r.stack[0]?.playbook === "admin_only")).toBe(false);
  });

  it("an admin's handoff starts the admin-only playbook, acting for the admin", async () => {
    const h = await started();
    await h.comment(1, "ada", "/run passon");
    const started2 = runs().find((r) => r.stack[0]?.playbook === "admin_only");
    expect(started2).toMatchObject({ initiator: "ada", initiatorPermission: "admin" });
  });

  it("a triage user's Mindscape HandoffPlan cannot delegate to an admin-only playbook", async () => {
    const h = await started();
    await h.comment(1, "erin", "/run rotate_plan");
    const [run] = runs();
    expect(run?.stack[0]?.playbook).toBe("rotate_plan");
    expect(run?.status).toBe("failed");
    expect(run?.error?.code).toBe("PB-PERMISSION");
    expect(run?.stack.map((f) => f.playbook)).toEqual(["rotate_plan"]);
  });

  it("an admin's HandoffPlan delegates to it", async () => {
    const h = await started();
    await h.comment(1, "ada", "/run rotate_plan");
    const [run] = runs();
    expect(run?.error).toBeUndefined();
    expect(run?.stack.map((f) => f.playbook)).toEqual(["rotate_plan", "admin_only"]);
  });
});
