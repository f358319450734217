import type { Diagnostic } from "../diagnostics.js";
import { RULES, RULE_CODES, type RuleCode } from "../../rules/catalogue.js";
import type { FileReport } from "../../rules/validate.js";
import { digest, lineHashes, withoutPositions } from "./fingerprints.js";
import {
  ruleDescription,
  ruleHelpMarkdown,
  ruleHelpText,
  ruleTags,
  ruleUrl,
  sentence,
} from "./rule-help.js";

// SARIF 2.1.0 as GitHub code scanning reads it (docs: "SARIF support for code scanning"): every
// rule with its help, results located from the repository root, and fingerprints that survive
// edits elsewhere in the file.

/** The base id GitHub and other consumers resolve relative result paths against. */
export const SOURCE_ROOT = "%SRCROOT%";

/** The key of the fingerprint made of what a result is about rather than where it is. */
export const LOGICAL_FINGERPRINT = "logicalLocationHash/v1";

export interface SarifRoot {
  /** The repository root as a `file:` URL ending in `/`. */
  uri: string;
  /**
   * A report's file as a `/`-separated path from the root, or as an absolute `file:` URL when
   * it lies outside the root.
   */
  locate(file: string): string;
}

export interface SarifOptions {
  /** The tool's version (package.json's). */
  version: string;
  /** The repository the tool comes from: each rule's help links to its section of docs/rules.md there. */
  repositoryUrl?: string;
  /** The tool's home page. */
  homepage?: string;
  /** Where the files are. Without it, report files are taken as paths from the root. */
  root?: SarifRoot;
}

const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?(\+[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$/;

/** A relative path as a URI reference: each segment percent-encoded, so `:`, `#`, `%` and spaces stay path. */
function pathUri(path: string): string {
  return path.split("/").map(encodeURIComponent).join("/");
}

function artifactLocation(
  file: string,
  root: SarifRoot | undefined,
): { uri: string; uriBaseId?: string } {
  const where = root ? root.locate(file) : file.replace(/\\/g, "/");
  return where.startsWith("file:")
    ? { uri: where }
    : { uri: pathUri(where), uriBaseId: SOURCE_ROOT };
}

function reportingDescriptor(code: RuleCode, options: SarifOptions) {
  const rule = RULES[code];
  const url = options.repositoryUrl ? ruleUrl(options.repositoryUrl, code) : undefined;
  return {
    id: code,
    shortDescription: { text: sentence(rule.summary) },
    fullDescription: { text: ruleDescription(code).slice(0, 1024) },
    ...(url ? { helpUri: url } : {}),
    help: { text: ruleHelpText(code, url), markdown: ruleHelpMarkdown(code) },
    defaultConfiguration: { level: rule.severity },
    properties: {
      tags: ruleTags(code),
      precision: "very-high",
      "problem.severity": rule.severity,
    },
  };
}

/** SARIF 2.1.0 for code scanning and editors. */
export function formatSarif(reports: readonly FileReport[], options: SarifOptions): string {
  const ruleIndex = new Map(RULE_CODES.map((code, i) => [code, i]));
  const occurrences = new Map<string, number>();
  const results = reports.flatMap((r) => {
    // Only the report's own file has its text here (a sidecar's diagnostics are in another).
    let hashes: string[] | undefined;
    const lineHash = (d: Diagnostic): string | undefined => {
      if (d.file !== r.file || r.text === "") return undefined;
      hashes ??= lineHashes(r.text);
      return hashes[d.line - 1];
    };
    return r.diagnostics.map((d) => {
      const location = artifactLocation(d.file, options.root);
      const identity = digest([d.rule, location.uri, d.path, withoutPositions(d.message)]);
      const n = (occurrences.get(identity) ?? 0) + 1;
      occurrences.set(identity, n);
      const primary = lineHash(d);
      return {
        ruleId: d.rule,
        ruleIndex: ruleIndex.get(d.rule),
        level: d.severity,
        message: { text: d.hint ? `${d.message}\nHint: ${d.hint}` : d.message },
        locations: [
          {
            physicalLocation: {
              artifactLocation: location,
              region: {
                startLine: d.line,
                startColumn: d.column,
                endLine: d.endLine,
                endColumn: d.endColumn,
              },
            },
            ...(d.path ? { logicalLocations: [{ fullyQualifiedName: d.path }] } : {}),
          },
        ],
        partialFingerprints: {
          ...(primary ? { primaryLocationLineHash: primary } : {}),
          [LOGICAL_FINGERPRINT]: `${identity}:${n}`,
        },
      };
    });
  });
  const informationUri = options.homepage ?? options.repositoryUrl;
  const sarif = {
    $schema: "https://json.schemastore.org/sarif-2.1.0.json",
    version: "2.1.0",
    runs: [
      {
        tool: {
          driver: {
            name: "playbook-bot",
            version: options.version,
            ...(SEMVER.test(options.version) ? { semanticVersion: options.version } : {}),
            ...(informationUri ? { informationUri } : {}),
            rules: RULE_CODES.map((code) => reportingDescriptor(code, options)),
          },
        },
        ...(options.root
          ? {
              originalUriBaseIds: {
                [SOURCE_ROOT]: {
                  uri: options.root.uri,
                  description: { text: "The root of the repository the playbooks are in." },
                },
              },
            }
          : {}),
        columnKind: "utf16CodeUnits",
        results,
      },
    ],
  };
  return JSON.stringify(sarif, null, 2) + "\n";
}
