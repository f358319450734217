import { readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { describe, expect, it } from "vitest";
import { dialectOf } from "../../../src/core/dialects/index.js";
import { SEED_REPOS, seedFiles } from "../../helpers/seed-repos.js";

const read = (file: string) => readFileSync(file, "utf8");

describe("Catalyst's Markdown playbooks are recognised by their text, wherever they lie", () => {
  const markdown = seedFiles("catalyst").filter((f) => f.endsWith(".md"));

  it.each(["flat/", ".github/playbooks/", "docs/", ""])("under '%s'", (folder) => {
    expect(markdown).toHaveLength(9);
    for (const file of markdown)
      expect(dialectOf(`${folder}${basename(file)}`, read(file))?.id, file).toBe("catalyst");
  });

  it("a Markdown file whose first title is not 'Playbook: …' is not Catalyst's", () => {
    const notes = "# Notes\n\nSee the playbook.\n\n# Playbook: later\n";
    expect(dialectOf("src/resources/playbooks/notes.md", notes)).toBeUndefined();
    const action = read(join(SEED_REPOS, "catalyst/src/resources/playbooks/start-rollout.md"));
    expect(dialectOf("x.md", action.replace("# Playbook:", "## Playbook:"))).toBeUndefined();
  });
});
