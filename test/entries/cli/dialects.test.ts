import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../../helpers/cli.js";
import { validateSource } from "../../../src/core/rules/validate.js";
import { ROOT, cleanup, makeDir, write } from "../../helpers/git-repo.js";

afterEach(cleanup);

const TRIAGENT = join(ROOT, "test/fixtures/dialects/triagent");
const fixture = (rel: string) => readFileSync(join(TRIAGENT, rel), "utf8");

const cli = runCli;

describe("other systems' playbooks in the CLI", () => {
  it("validate reads a folder of Triagent playbooks as written", async () => {
    const r = await cli(["validate", "test/fixtures/dialects/triagent"]);
    expect(r.code, r.out + r.err).toBe(0);
    expect(r.out).toMatch(/0 errors and \d+ warnings in 7 files/);
  });

  it("simulate walks Triagent's delegate fixture to its end, the child's findings in the parent", async () => {
    const repo = makeDir();
    for (const id of ["delegate_parent", "delegate_target"])
      write(
        repo,
        `.github/playbooks/${id}.yaml`,
        fixture(`testdata/playbooks/investigation/${id}.yaml`),
      );
    const events = join(ROOT, "test/fixtures/dialect-simulations/triagent-delegate.events.yaml");
    const r = await cli(["simulate", "delegate_parent", "--events", events], repo);
    expect(r.code, r.out + r.err).toBe(0);
    expect(r.out).toContain(
      "playbook **delegate_target** returned; its findings are recorded here",
    );
    expect(r.out).toMatch(/Run \S+ completed\.\n\s+All done\./);
  });

  it("a delegate whose target file does not load says why, and the rest of the set still runs", async () => {
    const repo = makeDir();
    write(
      repo,
      ".github/playbooks/delegate_parent.yaml",
      fixture("testdata/playbooks/investigation/delegate_parent.yaml"),
    );
    // The target as an author might break it: its symptom left empty.
    const target = fixture("testdata/playbooks/investigation/delegate_target.yaml");
    write(
      repo,
      ".github/playbooks/delegate_target.yaml",
      target.replace(/^symptom:.*$/m, 'symptom: ""'),
    );
    write(
      repo,
      ".github/playbooks/connectivity.yaml",
      fixture("testdata/playbooks/investigation/connectivity.yaml"),
    );
    const events = write(
      repo,
      "events.yaml",
      [
        "issue: { title: walk the fixture, author: dana }",
        "users: { dana: write }",
        "events:",
        "  - { comment: /run delegate_parent, by: dana }",
        "  - { comment: /choose walk_target, by: dana }",
        "  - { comment: /run connectivity, by: dana }",
        "",
      ].join("\n"),
    );
    const r = await cli(["simulate", "delegate_parent", "--events", events], repo);
    expect(r.out).toContain(
      "**Status:** failed — playbook 'delegate_target' cannot run: .github/playbooks/delegate_target.yaml is invalid — line 3: the playbook has no symptom (`PB-PLAYBOOK-INVALID`)",
    );
    expect(r.out).not.toContain("no playbook has id");
    // A sibling that loads runs as before.
    expect(r.out).toMatch(/completed\.\n\n\s+Operator-side network triage required\./);
  });

  it("validate reads the runbook spec's folder: runbooks with their sidecars, nothing else", async () => {
    const r = await cli(["validate", "test/fixtures/dialects/runbook"]);
    expect(r.code, r.out + r.err).toBe(0);
    // The three runbooks; sidecars, schemas, adapters' metadata and fixture cases are not playbooks.
    expect(r.out).toMatch(/0 errors and \d+ warnings in 3 files/);
  });

  it("simulate runs a runbook on its own fixture case to the spec's expected conclusion", async () => {
    const events = join(
      ROOT,
      "test/fixtures/dialect-simulations/runbook-request-not-persisted.events.yaml",
    );
    const r = await cli([
      "simulate",
      "test/fixtures/dialects/runbook/runbooks/request_not_effective.yaml",
      "--events",
      events,
    ]);
    expect(r.code, r.out + r.err).toBe(0);
    // manifest.json of the case expects this primary conclusion.
    expect(r.out).toContain("**decide**: request_not_observable_via_trace (confidence 0.66)");
    expect(r.out).toContain("- No matching trace was found for the provided incident locator.");
    expect(r.out).toMatch(/Run \S+ completed\./);
  });

  it("validate reads Mindscape's specs with their SOPs, and its front-matter playbooks", async () => {
    const r = await cli(["validate", "test/fixtures/dialects/mindscape"]);
    expect(r.code, r.out + r.err).toBe(0);
    // Six specs (their SOPs load with them) and two front-matter playbooks.
    expect(r.out).toMatch(/0 errors and \d+ warnings in 8 files/);
  });

  it("simulate runs a Mindscape spec: the bot calls its tools in order and the run completes silently", async () => {
    const events = join(
      ROOT,
      "test/fixtures/dialect-simulations/mindscape-pdf-ocr-and-index.events.yaml",
    );
    const r = await cli([
      "simulate",
      "test/fixtures/dialects/mindscape/backend/playbooks/specs/pdf_ocr_and_index.json",
      "--events",
      events,
    ]);
    expect(r.code, r.out + r.err).toBe(0);
    expect(r.out).toContain("**Status:** completed");
    expect(r.out).toContain("- [x] `index`");
    // interaction_mode: silent: the status comment is the only comment of the bot.
    expect(r.out.match(/💬 @playbook-bot\[bot\]/g)).toHaveLength(1);
  });

  it("import writes the v1 playbook, which validates as v1 with the same steps", async () => {
    const r = await cli([
      "import",
      "test/fixtures/dialects/triagent/testdata/playbooks/investigation/delegate_parent.yaml",
    ]);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/^# Converted from .*delegate_parent\.yaml \(Triagent\)/);
    const v1 = validateSource("delegate_parent.yaml", r.out);
    expect(v1.dialect).toBeUndefined();
    expect(v1.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    expect(v1.playbook?.nodes?.walk_target).toMatchObject({
      type: "playbook",
      mode: "delegate",
      playbook: "delegate_target",
    });
  });

  it("import refuses a v1 playbook and a file that does not convert, writing nothing", async () => {
    const v1 = await cli(["import", "playbooks/hello-world.yaml"]);
    expect(v1.code).toBe(1);
    expect(v1.out).toBe("");
    expect(v1.err).toContain("a v1 playbook needs no import");
    const dir = makeDir();
    const bad = write(
      dir,
      "bad.yaml",
      "id: bad\nsymptom: s\nentrypoint: a\nnodes:\n  a:\n    description: ''\n",
    );
    const r = await cli(["import", bad]);
    expect(r.code).toBe(1);
    expect(r.out).toBe("");
    expect(r.err).toContain("bad.yaml:6:19: node 'a' has an empty description [dialect-invalid]");
  });
});
