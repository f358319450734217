import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { cliIn } from "../helpers/cli.js";

// A playbook that commits straight onto the default branch, run by the GitHub App over the
// in-memory GitHub (`simulate`): the guard every effect passes refuses the commit before it is made.
const ONTO = (branch: string) => `apiVersion: playbook-bot/v1
id: onto-default
name: Onto the default branch
on:
  labels: [onto]
steps:
  - id: write
    type: commit
    branch: ${branch}
    message: change the default branch directly
    files:
      - path: NOTES.md
        content: written by a run
  - id: done
    type: end
    status: success
`;

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "pb-default-branch-"));
  mkdirSync(join(dir, ".github", "playbooks"), { recursive: true });
  writeFileSync(join(dir, "events.yaml"), "users:\n  octocat: write\nevents:\n  - label: onto\n");
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("a commit onto the default branch", () => {
  for (const branch of ["main", "MAIN"])
    it(`is refused before it is made (branch '${branch}')`, async () => {
      writeFileSync(join(dir, ".github", "playbooks", "onto.yaml"), ONTO(branch));
      const r = await cliIn(["simulate", "onto-default", "-e", "events.yaml"], dir);
      expect(r.code, r.err).toBe(0);
      expect(r.out).toContain(
        `a run does not commit to '${branch}', the repository's default branch`,
      );
      expect(r.out).toContain("**Status:** failed");
      expect(r.out).not.toContain("Pull requests:");
    });
});
