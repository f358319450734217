import { afterEach, describe, expect, it } from "vitest";
import { cleanup } from "../../helpers/git-repo.js";
import { validatePlacement, type Placement } from "../../helpers/seed-repos.js";

afterEach(cleanup);

const PLACEMENTS: Placement[] = ["flat", "github", "own"];

describe("the runbook spec's own repository (UnCooe/debug-runbook)", () => {
  it.each(PLACEMENTS)(
    "its three runbooks load with their sidecars, validated from another folder (%s)",
    async (placement) => {
      const files = await validatePlacement("runbook", placement);
      expect(files.map((f) => f.file.split("/").pop())).toEqual([
        "cache_stale.yaml",
        "request_not_effective.yaml",
        "state_abnormal.yaml",
      ]);
      expect(files.flatMap((f) => f.errors)).toEqual([]);
    },
  );
});

describe("Catalyst's own repository (Xerilium/catalyst)", () => {
  it.each(PLACEMENTS)(
    "its Markdown playbooks are found and load in each placement (%s)",
    async (p) => {
      const files = await validatePlacement("catalyst", p);
      const markdown = files.filter((f) => f.file.endsWith(".md"));
      expect(markdown).toHaveLength(9);
      expect(markdown.flatMap((f) => f.errors)).toEqual([]);
    },
  );
});
