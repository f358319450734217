import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { cruise, type ICruiseOptions, type ICruiseResult } from "dependency-cruiser";
import extractDepcruiseOptions from "dependency-cruiser/config-utl/extract-depcruise-options";
import extractTSConfig from "dependency-cruiser/config-utl/extract-ts-config";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// The import rules of src/ (.dependency-cruiser.mjs, explained in ARCHITECTURE.md): the layers
// point inwards, core is pure, entries stand alone, and no module reaches itself back.

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

async function rulesOfTheRepository(): Promise<ICruiseOptions> {
  return {
    ...(await extractDepcruiseOptions(join(root, ".dependency-cruiser.mjs"))),
    validate: true,
  };
}

/** Cruise `dir` (relative to `baseDir`) under the repository's rules. */
async function cruiseUnderRules(baseDir: string, tsConfig?: unknown): Promise<ICruiseResult> {
  const options = await rulesOfTheRepository();
  const result = await cruise(
    ["src"],
    { ...options, baseDir, ...(tsConfig ? {} : { tsConfig: undefined }) },
    {},
    tsConfig ? { tsConfig } : {},
  );
  return result.output as ICruiseResult;
}

/** Each violation as one line a reader can act on: the rule and the offending path. */
function offences(result: ICruiseResult): string[] {
  return result.summary.violations.map((v) =>
    v.cycle?.length
      ? `${v.rule.name}: ${[v.from, ...v.cycle.map((c) => c.name)].join(" → ")}`
      : `${v.rule.name}: ${v.from} → ${v.to}`,
  );
}

describe("the import graph of src/", () => {
  let result: ICruiseResult;
  beforeAll(async () => {
    result = await cruiseUnderRules(root, extractTSConfig(join(root, "tsconfig.json")));
  }, 120_000);

  it("has no circle, keeps the layers in order and core free of node: modules", () => {
    expect(result.summary.totalCruised).toBeGreaterThan(200);
    expect(offences(result)).toEqual([]);
  });
});

describe("the import rules", () => {
  let dir: string;
  let result: ICruiseResult;
  const write = (rel: string, text: string): void => {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), text);
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "pb-layers-"));
    write(
      "src/core/pure.ts",
      'import { readFileSync } from "node:fs";\nexport const a = readFileSync;\n',
    );
    write(
      "src/core/reaches-out.ts",
      'import { b } from "../runtime/port.js";\nexport const c = b;\n',
    );
    write(
      "src/runtime/port.ts",
      'import { d } from "../adapters/github.js";\nexport const b = d;\n',
    );
    write(
      "src/adapters/github.ts",
      'import { e } from "../entries/app/app.js";\nexport const d = e;\n',
    );
    write("src/entries/app/app.ts", "export const e = 1;\n");
    write("src/entries/lsp/main.ts", 'import { e } from "../app/app.js";\nexport const f = e;\n');
    write(
      "src/entries/cli/main.ts",
      'import { f } from "../lsp/main.js";\nexport const h = [f];\n',
    );
    write("src/core/engine/engine.ts", "export const advance = 1;\nexport type Env = number;\n");
    write(
      "src/entries/cli/runs.ts",
      'import { advance } from "../../core/engine/engine.js";\nimport type { Env } from "../../core/engine/engine.js";\nexport const i: Env = advance;\n',
    );
    write(
      "src/runtime/run-service/driver.ts",
      'import { advance } from "../../core/engine/engine.js";\nexport const j = advance;\n',
    );
    write("src/core/one.ts", 'import type { Two } from "./two.js";\nexport type One = Two[];\n');
    write("src/core/two.ts", 'import type { One } from "./one.js";\nexport type Two = One | 1;\n');
    result = await cruiseUnderRules(dir);
  }, 60_000);

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("name each offending import, a circle of type-only imports included", () => {
    const found = offences(result);
    expect(found).toEqual(
      expect.arrayContaining([
        "core-is-pure: src/core/pure.ts → fs",
        "core-imports-inwards: src/core/reaches-out.ts → src/runtime/port.ts",
        "runtime-imports-inwards: src/runtime/port.ts → src/adapters/github.ts",
        "adapters-imports-inwards: src/adapters/github.ts → src/entries/app/app.ts",
        "entry-imports-no-entry: src/entries/lsp/main.ts → src/entries/app/app.ts",
        "entry-imports-no-entry: src/entries/cli/main.ts → src/entries/lsp/main.ts",
        "engine-through-the-run-service: src/entries/cli/runs.ts → src/core/engine/engine.ts",
      ]),
    );
    expect(found.some((f) => /^no-circular: src\/core\/(one|two)\.ts/.test(f))).toBe(true);
    // The run driver may call the engine; a type-only import of it is no call.
    expect(found.filter((f) => f.startsWith("engine-through-the-run-service"))).toHaveLength(1);
  });
});
