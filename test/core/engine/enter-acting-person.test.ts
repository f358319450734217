import { describe, expect, it } from "vitest";
import { Driver, INITIATOR, TRIAGER, bundle, yaml } from "./helpers.js";

/**
 * Entering another playbook needs its `permissions.run` of whoever makes the run enter it: the
 * person who chose the branch that delegates, and never nobody (a run started by an alert).
 */

const ADMIN_ONLY = yaml`
  apiVersion: playbook-bot/v1
  id: admin_only
  permissions: { run: admin }
  steps:
    - id: rotate
      type: investigate
      description: Rotate the credentials.
      expected_findings: [rotated]
    - id: done
      type: end
      conclusion: rotated
`;

/** An alert may start it itself: a run for an alert may enter it. */
const FOR_ALERTS = yaml`
  apiVersion: playbook-bot/v1
  id: for_alerts
  permissions: { run: admin }
  on: { alerts: { match: { alertname: CredentialsLeaked } } }
  steps:
    - id: rotate
      type: investigate
      description: Rotate the credentials.
      expected_findings: [rotated]
    - id: done
      type: end
      conclusion: rotated
`;

/** People pick a branch; one of them delegates to the admin-only playbook. */
const CHOOSES = yaml`
  apiVersion: playbook-bot/v1
  id: triage
  entrypoint: look
  nodes:
    look:
      type: investigate
      description: Look around.
      next:
        - { condition: the credentials leaked, label: rotate, goto: rotate }
        - { condition: nothing leaked, label: close, goto: close }
    rotate:
      type: playbook
      playbook: admin_only
      mode: delegate
      next: close
    close:
      type: end
      advice: nothing to do
`;

const delegatesTo = (id: string) => yaml`
  apiVersion: playbook-bot/v1
  id: gather
  steps:
    - id: sub
      type: playbook
      playbook: ${id}
      mode: delegate
    - id: done
      type: end
      conclusion: gathered
`;

describe("a /choose that enters another playbook", () => {
  it("is refused to a chooser who may not run that playbook, though the initiator may", () => {
    const d = new Driver(bundle(CHOOSES), [bundle(ADMIN_ONLY)]);
    d.start();
    d.drive();
    expect(d.frame.current).toBe("look");
    const r = d.command("choose", TRIAGER, "rotate");
    expect(r.reply).toEqual({
      outcome: "refused",
      reason:
        "@frank may not choose 'rotate': it enters playbook 'admin_only', which needs admin access or more",
    });
    d.drive();
    expect(d.run.stack).toHaveLength(1);
    expect(d.frame.current).toBe("look");
  });

  it("is taken from a chooser who may run it", () => {
    const d = new Driver(bundle(CHOOSES), [bundle(ADMIN_ONLY)]);
    d.start();
    d.drive();
    d.command("choose", INITIATOR, "rotate");
    d.drive();
    expect(d.run.stack.map((f) => f.playbook)).toEqual(["triage", "admin_only"]);
  });
});

describe("a run started by an alert acts for nobody", () => {
  const alertRun = (target: string, others = [bundle(ADMIN_ONLY), bundle(FOR_ALERTS)]) => {
    const d = new Driver(bundle(delegatesTo(target)), others);
    d.start({}, { initiator: { login: "alert-prometheus" } });
    d.drive();
    return d;
  };

  it("may not enter a playbook with permissions.run that no alert may start", () => {
    const d = alertRun("admin_only");
    expect(d.run.stack).toHaveLength(1);
    expect(d.run.status).toBe("failed");
    expect(d.run.error).toMatchObject({
      code: "PB-PERMISSION",
      message:
        "a run started by an alert acts for nobody: it may enter only a playbook an alert may start (on.alerts) or anyone may run (permissions.run: read), and playbook 'admin_only' is neither (it needs admin access or more)",
    });
  });

  it("may enter a playbook an alert may start itself", () => {
    const d = alertRun("for_alerts");
    expect(d.run.stack.map((f) => f.playbook)).toEqual(["gather", "for_alerts"]);
  });
});
