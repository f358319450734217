// Writes src/core/steps/generated/: the four lists a step kind must be in, made from the one list
// in src/core/steps/kinds.ts and the kinds' folders. They are four because each feeds a module
// graph of its own (the format must not import executors, which import the format; validation
// must not load executors, which render Markdown), so they cannot be one list in code without an
// import circle or a validation path that loads how steps run. Run by `npm run kinds:write`; a test fails when the
// files are not what this writes.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { STEP_KIND_FOLDERS } from "../src/core/steps/kinds.js";

const stepsDir = fileURLToPath(new URL("../src/core/steps/", import.meta.url));
const NOTICE = "// Written by `npm run kinds:write` from ../kinds.ts: do not edit by hand.\n";

/** How a kind's folder names what it exports: `pull_request` → pullRequestKind, PullRequestStep. */
function namesOf(folder: string, read: (file: string) => string) {
  const camel = folder.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
  const pascal = camel[0]!.toUpperCase() + camel.slice(1);
  const expect = (file: string, pattern: RegExp, what: string): RegExpExecArray => {
    const found = pattern.exec(read(file));
    if (!found) throw new Error(`src/core/steps/${folder}/${file} must export ${what}`);
    return found;
  };
  expect("index.ts", new RegExp(`export const ${camel}Kind\\b`), `\`${camel}Kind\``);
  expect("executor.ts", new RegExp(`export const ${camel}Step\\b`), `\`${camel}Step\``);
  expect("schema.ts", new RegExp(`export const ${camel}Schema\\b`), `\`${camel}Schema\``);
  // A kind that holds steps takes the step type as a parameter (`ParallelStepOf<S>`).
  const step = expect(
    "step.ts",
    new RegExp(`export (?:interface|type) (${pascal}Step(?:Of)?)\\b`),
    `the type \`${pascal}Step\` (or \`${pascal}StepOf<S>\` when it holds steps)`,
  )[1]!;
  return { camel, step, generic: step.endsWith("Of") };
}

function list(name: string, items: readonly string[], doc: string): string {
  return `${doc}\nexport const ${name} = [\n${items.map((i) => `  ${i},\n`).join("")}] as const;\n`;
}

/** The generated files, by path relative to src/core/steps/. */
export function stepKindModules(
  read: (folder: string, file: string) => string = (folder, file) =>
    readFileSync(join(stepsDir, folder, file), "utf8"),
  folders: readonly string[] = STEP_KIND_FOLDERS,
): Record<string, string> {
  const kinds = folders.map((f) => ({
    folder: f,
    ...namesOf(f, (file) => read(f, file)),
  }));
  const imports = (what: (k: (typeof kinds)[number]) => string, file: string, type = "") =>
    kinds.map((k) => `import ${type}{ ${what(k)} } from "../${k.folder}/${file}.js";\n`).join("");
  const schemas =
    NOTICE +
    imports((k) => `${k.camel}Schema`, "schema") +
    "\n" +
    list(
      "STEP_KIND_SCHEMAS",
      kinds.map((k) => `${k.camel}Schema`),
      "/** Every kind's side of the format (its folder's schema.ts), in the `type` enum's order. */",
    );
  const plugins =
    NOTICE +
    imports((k) => `${k.camel}Kind`, "index") +
    "\n" +
    list(
      "STEP_KINDS_IN_FOLDERS",
      kinds.map((k) => `${k.camel}Kind`),
      "/** Every kind's hooks (its folder's index.ts): what validation and the engine ask of it. */",
    );
  const executors =
    NOTICE +
    imports((k) => `${k.camel}Step`, "executor") +
    "\n" +
    list(
      "STEP_EXECUTORS_IN_FOLDERS",
      kinds.map((k) => `${k.camel}Step`),
      "/** Every kind's executor (its folder's executor.ts): how its steps run. */",
    );
  const union = kinds.map((k) => (k.generic ? `${k.step}<Step>` : k.step));
  const steps =
    NOTICE +
    imports((k) => k.step, "step", "type ") +
    "\n// Each kind's step type and the types it names, for the format to export.\n" +
    kinds.map((k) => `export type * from "../${k.folder}/step.js";\n`).join("") +
    "\n/** A step of any kind (a kind that holds steps holds steps of any kind). */\n" +
    `export type Step =\n${union.map((u) => `  | ${u}`).join("\n")};\n`;
  return {
    "generated/schemas.ts": schemas,
    "generated/plugins.ts": plugins,
    "generated/executors.ts": executors,
    "generated/step.ts": steps,
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  for (const [path, text] of Object.entries(stepKindModules())) {
    writeFileSync(join(stepsDir, path), text);
    process.stdout.write(`wrote src/core/steps/${path}\n`);
  }
}
