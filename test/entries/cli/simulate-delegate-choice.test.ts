import { afterEach, describe, expect, it } from "vitest";
import { main } from "../../../src/entries/cli/main.js";
import { cleanup, makeDir, write } from "../../helpers/git-repo.js";
import { CHANGES, TRIAGE } from "./delegate-fixtures.js";

afterEach(cleanup);

const EVENTS = `issue: { title: checkout is down, author: dana }
users: { dana: triage }
events:
  - comment: /run triage
    by: dana
  - comment: /record recent_deploy=true
    by: dana
  - comment: /choose rollback
    by: dana
`;

describe("simulate: a delegate with prose branches", () => {
  it("waits for /choose after the child returns and follows the branch chosen", async () => {
    const dir = makeDir();
    write(dir, "triage.yaml", TRIAGE);
    write(dir, "changes.yaml", CHANGES);
    write(dir, "events.yaml", EVENTS);
    let out = "";
    let err = "";
    const code = await main(["simulate", "triage.yaml", "--events", "events.yaml"], {
      out: (t) => (out += t),
      err: (t) => (err += t),
      cwd: dir,
    });
    expect(err).toBe("");
    expect(code).toBe(0);
    expect(out).not.toContain("PB-NO-BRANCH");
    expect(out).toContain(
      "**sub**: playbook **changes** returned (conclusion: gathered); its findings are recorded here.",
    );
    expect(out).toContain(
      "`/choose rollback` (a deploy broke it), `/choose dig` (nothing changed)",
    );
    expect(out).toContain("💬 @dana  [👀 🚀]\n   /choose rollback\n");
    expect(out).toContain("### ✅ Triage");
    expect(out).toContain("Roll back the deploy.");
  });
});
