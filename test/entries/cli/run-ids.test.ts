import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { branches, cleanup, git, makeRepo, runIn } from "../../helpers/git-repo.js";

afterEach(cleanup);

describe("local run ids", () => {
  it("keeps three archives of three runs started in the same minute", async () => {
    const repo = makeRepo();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      // The clock stands still: every run starts at 10:20:30.
      const r = await runIn(repo, "hello-world", [], { mode: "autonomous" }, { randomToken: true });
      expect(r.code).toBe(0);
      const id = /Run (\S+) completed/.exec(r.out)?.[1];
      ids.push(id as string);
    }
    const day = join(repo, ".playbook-runs", "history", "2024", "03", "05");
    // Each run's state, and its trace beside it.
    expect(readdirSync(day)).toHaveLength(6);
    expect(readdirSync(day).sort()).toEqual(
      ids.flatMap((id) => [`run-${id}.json`, `run-${id}.trace.jsonl`]).sort(),
    );
    // Readable date and time, then random characters.
    for (const id of ids) expect(id).toMatch(/^20240305-1020-[a-z0-9]{6}$/);
    for (const id of ids)
      expect(JSON.parse(readFileSync(join(day, `run-${id}.json`), "utf8")).run.id).toBe(id);
    // Three branches, each with its own commit.
    const made = branches(repo).filter((b) => b !== "main");
    expect(made).toHaveLength(3);
    for (const b of made) expect(git(repo, "rev-list", "--count", `main..${b}`)).toBe("1");
  });
});
