import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../../helpers/cli.js";
import { validateSource } from "../../../src/core/rules/validate.js";
import { ROOT, cleanup, makeDir, write } from "../../helpers/git-repo.js";

afterEach(cleanup);

const RUNBOOK = join(ROOT, "test/fixtures/dialects/runbook");

const cli = runCli;

/** A repository with the spec's runbooks and adapters laid out as the spec keeps them. */
function specRepo(): string {
  const repo = makeDir();
  for (const name of readdirSync(join(RUNBOOK, "runbooks")))
    write(repo, `.github/playbooks/${name}`, readFileSync(join(RUNBOOK, "runbooks", name), "utf8"));
  for (const prefix of readdirSync(join(RUNBOOK, "adapters")))
    for (const name of readdirSync(join(RUNBOOK, "adapters", prefix)))
      write(
        repo,
        `.github/adapters/${prefix}/${name}`,
        readFileSync(join(RUNBOOK, "adapters", prefix, name), "utf8"),
      );
  return repo;
}

describe("runbook-spec runbooks in the CLI", () => {
  it("validate reads the spec's runbooks with their sidecars, warnings only", async () => {
    const r = await cli(["validate", "test/fixtures/dialects/runbook/runbooks"]);
    expect(r.code, r.out + r.err).toBe(0);
    expect(r.out).toMatch(/0 errors and \d+ warnings in 3 files/);
  });

  it("simulate runs request_not_effective on the spec's own case to its conclusion", async () => {
    const events = join(
      ROOT,
      "test/fixtures/dialect-simulations/runbook-request-not-persisted.events.yaml",
    );
    const r = await cli(["simulate", "request_not_effective", "--events", events], specRepo());
    expect(r.code, r.out + r.err).toBe(0);
    // The case's expected primary conclusion: the sidecar's first rule whose findings all hold.
    expect(r.out).toContain("**decide**: request_not_observable_via_trace (confidence 0.66)");
    expect(r.out).toContain("- The related cache key is absent.");
    expect(r.out).toMatch(/Run \S+ completed\./);
  });

  it("import writes one v1 playbook from the runbook and its sidecars, valid as v1", async () => {
    const r = await cli(["import", "test/fixtures/dialects/runbook/runbooks/cache_stale.yaml"]);
    expect(r.code, r.err).toBe(0);
    const v1 = validateSource("cache_stale.yaml", r.out);
    expect(v1.dialect).toBeUndefined();
    expect(v1.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    expect(v1.playbook?.on?.issues?.context_types).toEqual(["order_id", "task_id"]);
    const decide = v1.playbook?.steps?.find((s) => s.type === "decide");
    expect(decide).toMatchObject({ type: "decide", require_evidence: true });
  });
});
