import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "vitest";
import type { PlaybookDocument } from "../../../src/core/format/types.js";
import type { PlaybookBundle } from "../../../src/core/steps/types.js";
import { validateSource } from "../../../src/core/rules/validate.js";
import { main } from "../../../src/entries/cli/main.js";
import { runCase, type CaseResult } from "../../../src/adapters/local/playbook-tests.js";

/** Every golden case of a playbook, run by the CLI's runner (effects simulated). */
export async function runGoldenCases(
  playbook: PlaybookDocument,
  others: PlaybookDocument[] = [],
): Promise<CaseResult[]> {
  const bundles = new Map<string, PlaybookBundle>();
  for (const p of [playbook, ...others])
    bundles.set(p.id, { playbook: p, hash: `h-${p.id}`, files: {} });
  const bundle = bundles.get(playbook.id) as PlaybookBundle;
  const out: CaseResult[] = [];
  for (const tc of playbook.tests ?? [])
    out.push(await runCase(bundle, (id) => bundles.get(id), tc));
  return out;
}

/**
 * `playbook-bot test <file>` on the YAML text, in a folder of its own: validation with the
 * bundled library, then every golden case, exactly as a user runs it.
 */
export async function cliTest(
  file: string,
  yaml: string,
): Promise<{ code: number; out: string; err: string }> {
  const cwd = mkdtempSync(join(tmpdir(), "systematise-"));
  try {
    writeFileSync(join(cwd, file), yaml);
    let out = "";
    let err = "";
    const code = await main(["test", file], {
      out: (t) => (out += t),
      err: (t) => (err += t),
      cwd,
    });
    return { code, out, err };
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
}

/** The diagnostics of YAML text, validated as one file (all single-file layers). */
export function diagnosticsOf(yaml: string): string[] {
  return validateSource("p.yaml", yaml).diagnostics.map(
    (d) => `${d.severity} ${d.rule}: ${d.message}`,
  );
}

/** Every string anywhere in a value. */
export function stringsIn(value: unknown, out: string[] = []): string[] {
  if (typeof value === "string") out.push(value);
  else if (Array.isArray(value)) for (const v of value) stringsIn(v, out);
  else if (value && typeof value === "object")
    for (const [k, v] of Object.entries(value)) {
      out.push(k);
      stringsIn(v, out);
    }
  return out;
}

export function expectPasses(results: CaseResult[]): void {
  expect(results.length).toBeGreaterThan(0);
  for (const r of results)
    expect({ name: r.name, problems: r.problems }).toEqual({ name: r.name, problems: [] });
}
