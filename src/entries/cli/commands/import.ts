import "../../../adapters/local/yaml-library.js";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { playbookSource, rootFor, sidecarRoot } from "../../../adapters/local/safe-files.js";
import { siblingsOnDisk } from "../../../adapters/local/siblings.js";
import { DIALECTS } from "../../../core/dialects/index.js";
import { formatText } from "../../../core/format/report/text.js";
import { isRefusedSource } from "../../../core/format/source.js";
import { yamlLibrary } from "../../../core/format/yaml-library.js";
import { loadPlaybookSource, validateSource } from "../../../core/rules/validate.js";
import { EXIT, textStyle, UsageError, type CliContext } from "../cli-io.js";
import { onDisk } from "../playbook-files.js";

/** `playbook-bot import`: another system's playbook printed as v1 YAML, or why it cannot be. */
export function importCommand(ctx: CliContext, file: string): number {
  const { io } = ctx;
  const abs = resolve(io.cwd, file);
  if (!existsSync(abs)) throw new UsageError(`${file}: no such file`);
  const siblings = siblingsOnDisk(abs, sidecarRoot(abs, io.cwd));
  const source = playbookSource(abs, { root: rootFor(abs, io.cwd) });
  const report = validateSource(file, source, onDisk(io.cwd));
  const style = textStyle(ctx, "err");
  if (isRefusedSource(source)) {
    io.err(formatText([report], style));
    return EXIT.invalid;
  }
  if (!report.dialect) {
    io.err(
      `playbook-bot: ${file} is not a playbook of another system this reads (${DIALECTS.map((d) => d.title).join(", ")}); a v1 playbook needs no import\n`,
    );
    return EXIT.invalid;
  }
  const errors = report.diagnostics.filter((d) => d.severity === "error");
  const loaded = loadPlaybookSource(file, source, undefined, siblings);
  if (errors.length > 0 || !loaded.ok) {
    io.err(formatText([report], style));
    io.err(`playbook-bot: ${file} does not convert as it is; nothing was written\n`);
    return EXIT.invalid;
  }
  const title = DIALECTS.find((d) => d.id === report.dialect)?.title ?? report.dialect;
  io.out(`# Converted from ${file} (${title}) by playbook-bot import.\n`);
  io.out(yamlLibrary().dump(loaded.document.value, { lineWidth: 100, noRefs: true }));
  if (report.diagnostics.length) io.err(formatText([report], style));
  return EXIT.ok;
}
