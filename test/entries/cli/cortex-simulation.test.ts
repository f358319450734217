import { readFileSync, readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { main } from "../../../src/entries/cli/main.js";
import { FIXED_NOW, ROOT, cleanup, makeDir, write } from "../../helpers/git-repo.js";

afterEach(cleanup);

const PACKAGE = join(ROOT, "test/fixtures/dialects/cortex/playbooks/incident-triage");

function filesIn(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesIn(path) : [path];
  });
}

describe("a Cortex package in the CLI", () => {
  it("simulate runs the incident-triage package from .github/playbooks to its end", async () => {
    const repo = makeDir();
    for (const path of filesIn(PACKAGE))
      write(
        repo,
        `.github/playbooks/incident-triage/${relative(PACKAGE, path)}`,
        readFileSync(path, "utf8"),
      );
    const events = join(
      ROOT,
      "test/fixtures/dialect-simulations/cortex-incident-triage.events.yaml",
    );
    let out = "";
    let err = "";
    const code = await main(["simulate", "incident-triage", "--events", events], {
      out: (t) => void (out += t),
      err: (t) => void (err += t),
      cwd: repo,
      clock: () => new Date(FIXED_NOW),
    });
    expect(code, out + err).toBe(0);
    expect(out).toMatch(/Run \S+ completed\./);
    // The minor branch was chosen: the summary was written, nobody was paged.
    expect(out).toMatch(/- \[x\] `summarise`/);
    expect(out).not.toMatch(/- \[x\] `page`/);
  });
});
