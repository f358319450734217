import { afterEach, describe, expect, it } from "vitest";
import { readStatusComment } from "../../../src/runtime/run-service/status-comment.js";
import { Sandbox, signature } from "../../../src/entries/playground/sandbox.js";

let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

describe("the playground's sandbox", () => {
  it("runs the real app over HTTP: a label starts a bundled playbook, /approve carries it to its end", async () => {
    sandbox = await Sandbox.start({
      people: { alice: "write", bob: "maintain" },
      wakeUpPollMs: false,
    });
    const issue = await sandbox.openIssue("Say hello", "", "alice");
    await sandbox.label(issue, "hello", "alice");
    const status = () => sandbox!.api.statusComments(issue)[0];
    expect(status()?.body).toContain("Approve the greeting");
    // The initiator may not approve their own run; another person with write access may.
    await sandbox.comment(issue, "alice", "/approve");
    expect([...sandbox.api.comments.values()].at(-1)?.body).toContain("cannot approve it");
    await sandbox.comment(issue, "bob", "/approve");
    const read = readStatusComment(status()!.body, sandbox.sealOf(issue, status()!.id));
    expect(read.ok && read.run.status).toBe("completed");
    expect(sandbox.api.branches().some((b) => b.startsWith("playbook/hello-world-"))).toBe(true);
    // Every delivery went through the app's HTTP server and its signature check.
    expect(sandbox.deliveries.length).toBeGreaterThan(3);
    expect(sandbox.deliveries.every((d) => d.status === 200)).toBe(true);
  });

  it("is refused by the app when a delivery's signature is wrong", async () => {
    sandbox = await Sandbox.start({ wakeUpPollMs: false });
    const body = JSON.stringify({ action: "opened" });
    expect(signature("s", body)).toMatch(/^sha256=[0-9a-f]{64}$/);
    const forged = await fetch((sandbox as unknown as { webhookUrl: string }).webhookUrl, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-github-event": "issues",
        "x-github-delivery": "forged",
        "x-hub-signature-256": signature("not-the-secret", body),
      },
      body,
    });
    expect(forged.status).toBe(400);
  });
});
