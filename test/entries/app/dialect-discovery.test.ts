import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FakeGitHub } from "../../helpers/fake-github.js";
import { Harness, installedRepository, makeClock, readStatus } from "./harness.js";

const TRIAGENT = join(import.meta.dirname, "../../fixtures/dialects/triagent/testdata/playbooks");
const fixture = (rel: string) => readFileSync(join(TRIAGENT, rel), "utf8");

/** A repository's own file that reuses the id of the bot's system playbook. */
const OVERRIDE = `apiVersion: playbook-bot/v1
id: alert-triage
active: false
steps: [{ id: e, type: end }]
`;

describe("the app finds other systems' playbooks in .github/playbooks/", () => {
  let fake: FakeGitHub;
  let h: Harness;
  beforeEach(async () => {
    const clock = makeClock();
    fake = installedRepository(
      {
        // Triagent keeps playbooks in a folder per type, with a type.txt beside them.
        ".github/playbooks/investigation/delegate_target.yaml": fixture(
          "investigation/delegate_target.yaml",
        ),
        ".github/playbooks/investigation/type.txt": fixture("investigation/type.txt"),
        ".github/playbooks/alert-triage.yaml": OVERRIDE,
      },
      { dana: "write" },
      clock,
    );
    h = await new Harness(fake, clock).start();
  });
  afterEach(() => fake.uninstall());

  it("runs a Triagent playbook as written, started with /run", async () => {
    const issue = fake.openIssue("Walk", "", "dana");
    await h.comment(issue.number, "dana", "/run delegate_target");
    await h.comment(issue.number, "dana", "/record target_finding=yes");
    await h.comment(issue.number, "dana", "/choose terminal_done");
    const read = readStatus(fake.statusComments(issue.number)[0]);
    expect(read.ok && read.run.status).toBe("completed");
    expect(read.ok && read.run.end?.advice).toBe("Returning to parent.");
  });

  it("keeps the system playbook when a repository file reuses its id (the file is reported)", async () => {
    const issue = fake.openIssue("Triage", "", "dana");
    await h.comment(issue.number, "dana", "/run alert-triage");
    // The bundled alert-triage starts: the repository's file neither replaced nor disabled it.
    const read = readStatus(fake.statusComments(issue.number)[0]);
    expect(read.ok && read.run.stack[0]?.playbook).toBe("alert-triage");
    expect(fake.statusComments(issue.number)[0]?.body).toContain("Triage an alert");
  });
});
