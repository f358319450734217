import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv, type ValidateFunction } from "ajv";
import { describe, expect, it } from "vitest";
import type { RuleDiagnostic as Diagnostic } from "../../../src/core/rules/catalogue.js";
import { lineHashes } from "../../../src/core/format/report/fingerprints.js";
import {
  formatSarif,
  LOGICAL_FINGERPRINT,
  type SarifOptions,
} from "../../../src/core/format/report/sarif.js";
import { RULES, RULE_CODES } from "../../../src/core/rules/catalogue.js";
import { validateSet, type FileReport } from "../../../src/core/rules/validate.js";
import { ROOT } from "../../helpers/git-repo.js";
import { yaml } from "./helpers.js";

/**
 * The official SARIF 2.1.0 schema (test/fixtures/sarif/README.md says where it is from). It is
 * written in draft-04, which Ajv 8 does not read; the keywords it uses (type, properties,
 * required, enum, items, minimum, pattern, format, $ref, anyOf, oneOf...) mean the same in the
 * drafts Ajv reads, so only draft-04's `id` becomes `$id`.
 */
function sarifValidator(): ValidateFunction {
  const raw = JSON.parse(
    readFileSync(join(ROOT, "test/fixtures/sarif/sarif-schema-2.1.0.json"), "utf8"),
  ) as Record<string, unknown>;
  const { id, ...rest } = raw;
  delete rest.$schema;
  const ajv = new Ajv({ allErrors: true, strict: false });
  const isUrl = (s: string, base?: string) => {
    try {
      new URL(s, base);
      return true;
    } catch {
      return false;
    }
  };
  ajv.addFormat("uri", (s) => isUrl(s));
  ajv.addFormat("uri-reference", (s) => isUrl(s, "file:///root/"));
  ajv.addFormat("date-time", (s) => !Number.isNaN(Date.parse(s)));
  return ajv.compile({ $id: String(id), ...rest });
}

const validate = sarifValidator();

const OPTIONS: SarifOptions = {
  version: "1.2.3",
  repositoryUrl: "https://github.com/octo/playbooks",
  homepage: "https://github.com/octo/playbooks#readme",
  root: {
    uri: "file:///work/repo/",
    locate: (file) => (file.startsWith("/") ? `file://${file}` : `sub/${file}`),
  },
};

// A schema error (the graph is not checked past it) and a style warning.
const BROKEN = yaml`
  apiVersion: playbook-bot/v1
  id: broken
  steps:
    - id: first
      type: comit
    - id: second
      type: comment
      body: hi
      next: nowhere
`;

function sarifOf(reports: FileReport[], options: SarifOptions = OPTIONS) {
  const text = formatSarif(reports, options);
  const log = JSON.parse(text);
  return { text, log, run: log.runs[0] };
}

describe("SARIF", () => {
  it("is valid SARIF 2.1.0 by the official schema, with every field code scanning reads", () => {
    const reports = validateSet(
      [
        { file: "a b/broken.yaml", source: BROKEN },
        {
          file: "ok.yaml",
          source: "apiVersion: playbook-bot/v1\nid: ok\nsteps: [{ id: e, type: end }]\n",
        },
      ],
      {},
    );
    const { log, run } = sarifOf(reports);
    expect(validate(log), JSON.stringify(validate.errors, null, 1)).toBe(true);
    expect(log.$schema).toBe("https://json.schemastore.org/sarif-2.1.0.json");
    expect(run.tool.driver).toMatchObject({
      name: "playbook-bot",
      version: "1.2.3",
      semanticVersion: "1.2.3",
      informationUri: "https://github.com/octo/playbooks#readme",
    });
    expect(run.columnKind).toBe("utf16CodeUnits");
    expect(run.originalUriBaseIds).toEqual({
      "%SRCROOT%": {
        uri: "file:///work/repo/",
        description: { text: "The root of the repository the playbooks are in." },
      },
    });
    // The broken file's other steps are checked beyond its schema error in the same run.
    expect(run.results.map((r: { ruleId: string }) => r.ruleId).sort()).toEqual([
      "goto-unresolved",
      "schema-step-type",
      "step-no-description",
      "step-no-description",
    ]);
    for (const r of run.results) {
      expect(run.tool.driver.rules[r.ruleIndex].id).toBe(r.ruleId);
      const { artifactLocation, region } = r.locations[0].physicalLocation;
      expect(Object.keys(region).sort()).toEqual([
        "endColumn",
        "endLine",
        "startColumn",
        "startLine",
      ]);
      expect(artifactLocation.uriBaseId).toBe("%SRCROOT%");
      expect(r.partialFingerprints.primaryLocationLineHash).toMatch(/^[0-9a-f]+:\d+$/);
      expect(r.partialFingerprints[LOGICAL_FINGERPRINT]).toMatch(/^[0-9a-f]{16}:1$/);
    }
    const typo = run.results.find((r: { ruleId: string }) => r.ruleId === "schema-step-type");
    expect(typo.locations[0]).toEqual({
      physicalLocation: {
        // From the root, each segment percent-encoded.
        artifactLocation: { uri: "sub/a%20b/broken.yaml", uriBaseId: "%SRCROOT%" },
        region: { startLine: 5, startColumn: 11, endLine: 5, endColumn: 16 },
      },
      logicalLocations: [{ fullyQualifiedName: "steps[0].type" }],
    });
    expect(typo.message.text).toMatch(/unknown step kind 'comit'[\s\S]*\nHint: write 'commit'$/);
    expect(typo.partialFingerprints.primaryLocationLineHash).toBe(lineHashes(BROKEN)[4]);
  });

  it("the schema check itself rejects what SARIF does not allow", () => {
    const { log } = sarifOf(validateSet([{ file: "broken.yaml", source: BROKEN }], {}));
    log.runs[0].results[0].level = "fatal";
    delete log.runs[0].tool.driver.name;
    expect(validate(log)).toBe(false);
    expect(validate.errors?.map((e) => e.instancePath)).toEqual(
      expect.arrayContaining(["/runs/0/results/0/level", "/runs/0/tool/driver"]),
    );
  });

  it("describes every rule of the catalogue, each with its help, link, level and tags", () => {
    const { run } = sarifOf([]);
    const rules = run.tool.driver.rules as {
      id: string;
      shortDescription: { text: string };
      fullDescription: { text: string };
      helpUri: string;
      help: { text: string; markdown: string };
      defaultConfiguration: { level: string };
      properties: { tags: string[]; precision: string; "problem.severity": string };
    }[];
    expect(rules.map((r) => r.id)).toEqual(RULE_CODES);
    expect(run.results).toEqual([]);
    for (const r of rules) {
      const rule = RULES[r.id as keyof typeof RULES];
      expect(r.shortDescription.text.toLowerCase()).toContain(
        rule.summary.slice(1, 20).toLowerCase(),
      );
      expect(r.fullDescription.text.length).toBeLessThanOrEqual(1024);
      expect(r.fullDescription.text.length).toBeGreaterThan(r.shortDescription.text.length);
      expect(r.helpUri).toBe(`https://github.com/octo/playbooks/blob/main/docs/rules.md#${r.id}`);
      expect(r.help.text).toContain("Why: ");
      expect(r.help.text).toContain("How to fix: ");
      expect(r.help.text).toContain("Example");
      expect(r.help.text).toContain(`More: ${r.helpUri}`);
      expect(r.help.markdown).toContain("**Why.**");
      expect(r.help.markdown).toContain("**How to fix.**");
      expect(r.help.markdown).toContain("**Example.**");
      expect(r.defaultConfiguration.level).toBe(rule.severity);
      expect(r.properties["problem.severity"]).toBe(rule.severity);
      expect(r.properties.precision).toBe("very-high");
      expect(r.properties.tags).toEqual(expect.arrayContaining(["playbook", rule.layer]));
    }
    const byId = new Map(rules.map((r) => [r.id, r]));
    expect(byId.get("path-unsafe")?.properties.tags).toContain("security");
    expect(byId.get("input-unused")?.properties.tags).toContain("maintainability");
    expect(byId.get("goto-unresolved")?.properties.tags).toContain("correctness");
  });

  it("keeps both fingerprints when lines are added above a problem", () => {
    const before = validateSet([{ file: "broken.yaml", source: BROKEN }], {});
    const moved = `# A comment\n# and another\n\n${BROKEN}`;
    const after = validateSet([{ file: "broken.yaml", source: moved }], {});
    const a = sarifOf(before).run.results;
    const b = sarifOf(after).run.results;
    expect(b.map((r: { ruleId: string }) => r.ruleId)).toEqual(
      a.map((r: { ruleId: string }) => r.ruleId),
    );
    for (let i = 0; i < a.length; i++) {
      expect(b[i].locations[0].physicalLocation.region.startLine).toBe(
        a[i].locations[0].physicalLocation.region.startLine + 3,
      );
      expect(b[i].partialFingerprints).toEqual(a[i].partialFingerprints);
    }
  });

  it("tells identical problems apart by occurrence, and leaves line numbers out of the identity", () => {
    const d = (line: number, message: string): Diagnostic => ({
      rule: "step-duplicate-id",
      severity: "error",
      file: "p.yaml",
      path: "steps[1].id",
      message,
      line,
      column: 1,
      endLine: line,
      endColumn: 2,
    });
    const results = (ds: Diagnostic[]) =>
      sarifOf([{ file: "p.yaml", text: "", diagnostics: ds }]).run.results.map(
        (r: { partialFingerprints: Record<string, string> }) => r.partialFingerprints,
      );
    const [one, two] = results([d(3, "already used at line 2"), d(3, "already used at line 2")]);
    expect(one?.[LOGICAL_FINGERPRINT]?.replace(/:1$/, ":2")).toBe(two?.[LOGICAL_FINGERPRINT]);
    // Without the file's text there is no line hash: upload-sarif computes it from the file.
    expect(one?.primaryLocationLineHash).toBeUndefined();
    const [moved] = results([d(9, "already used at line 8")]);
    expect(moved?.[LOGICAL_FINGERPRINT]).toBe(one?.[LOGICAL_FINGERPRINT]);
    const [other] = results([d(3, "already used at line 2 by another")]);
    expect(other?.[LOGICAL_FINGERPRINT]).not.toBe(one?.[LOGICAL_FINGERPRINT]);
  });

  it("locates a file outside the root by its absolute URL, and a sidecar's problem without a line hash", () => {
    const sidecar: Diagnostic = {
      rule: "dialect-invalid",
      severity: "error",
      file: "/elsewhere/x.decision.json",
      path: "",
      message: "bad",
      line: 1,
      column: 1,
      endLine: 1,
      endColumn: 2,
    };
    const { log, run } = sarifOf([{ file: "x.yaml", text: "a: 1\n", diagnostics: [sidecar] }]);
    expect(validate(log)).toBe(true);
    expect(run.results[0].locations[0]).toEqual({
      physicalLocation: {
        artifactLocation: { uri: "file:///elsewhere/x.decision.json" },
        region: { startLine: 1, startColumn: 1, endLine: 1, endColumn: 2 },
      },
    });
    expect(Object.keys(run.results[0].partialFingerprints)).toEqual([LOGICAL_FINGERPRINT]);
  });

  it("without a root or a repository, keeps paths as given and leaves links out", () => {
    const reports = validateSet([{ file: "sub\\win.yaml", source: BROKEN }], {});
    const { log, run } = sarifOf(reports, { version: "dev" });
    expect(validate(log)).toBe(true);
    expect(run.originalUriBaseIds).toBeUndefined();
    expect(run.tool.driver.semanticVersion).toBeUndefined();
    expect(run.tool.driver.informationUri).toBeUndefined();
    expect(run.tool.driver.rules[0].helpUri).toBeUndefined();
    expect(run.tool.driver.rules[0].help.text).not.toContain("More:");
    expect(run.results[0].locations[0].physicalLocation.artifactLocation).toEqual({
      uri: "sub/win.yaml",
      uriBaseId: "%SRCROOT%",
    });
    const informed = sarifOf(reports, { version: "1.0.0", repositoryUrl: "https://x.test/o/r" });
    expect(informed.run.tool.driver.informationUri).toBe("https://x.test/o/r");
  });
});
