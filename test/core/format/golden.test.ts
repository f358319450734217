import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { bundledPlaybooks } from "../../../src/adapters/local/library.js";
import { formatText } from "../../../src/core/format/report/text.js";
import { validateSet } from "../../../src/core/rules/validate.js";

/**
 * Golden files: the text report of each broken playbook in test/fixtures/playbooks/invalid is
 * compared with test/golden/<name>.txt. Run with UPDATE_GOLDEN=1 to rewrite them (then review
 * the diff). File names in the reports are relative to the repository root.
 */
const FIXTURES = "test/fixtures/playbooks/invalid";
const GOLDEN = "test/golden";
const update = process.env.UPDATE_GOLDEN === "1";

const fixtures = readdirSync(FIXTURES)
  .filter((f) => f.endsWith(".yaml"))
  .sort();

describe("golden text reports", () => {
  it("has fixtures", () => {
    expect(fixtures.length).toBeGreaterThanOrEqual(4);
  });

  for (const name of fixtures) {
    it(name, async () => {
      const file = `${FIXTURES}/${name}`;
      const known = await bundledPlaybooks();
      const reports = validateSet([{ file, source: readFileSync(file) }], {
        known,
        fileExists: (f, rel) => existsSync(join(dirname(f), rel)),
      });
      const text = formatText(reports);
      const golden = join(GOLDEN, name.replace(/\.yaml$/, ".txt"));
      if (update) writeFileSync(golden, text);
      expect(existsSync(golden), `${golden} is missing: run with UPDATE_GOLDEN=1`).toBe(true);
      expect(text).toBe(readFileSync(golden, "utf8"));
      // Every fixture is broken in several ways.
      expect(reports[0]?.diagnostics.filter((d) => d.severity === "error").length).toBeGreaterThan(
        2,
      );
    });
  }
});
