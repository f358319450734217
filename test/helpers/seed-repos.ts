import { cpSync, readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join, relative, resolve } from "node:path";
import { runCli } from "./cli.js";
import { ROOT, makeDir, write } from "./git-repo.js";

/** The seed systems' real files at their upstream paths (see its README). */
export const SEED_REPOS = join(ROOT, "test/fixtures/seed-repos");

export type SeedSystem = "runbook" | "catalyst" | "mindscape" | "triagent";
export type Placement = "flat" | "github" | "own";

/** The folders, per system, that hold its playbooks (and their sidecars) upstream. */
const PLAYBOOK_DIRS: Record<SeedSystem, string[]> = {
  runbook: ["runbooks"],
  catalyst: ["src/resources/playbooks", "tests/fixtures/playbooks"],
  mindscape: ["backend/playbooks/specs", "backend/playbooks", "backend/i18n/playbooks/en"],
  triagent: ["system", "pkg/mcp/strategies/testdata/playbooks", "e2e/fixtures/playbooks"],
};

function filesIn(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesIn(path) : [path];
  });
}

/** A system's playbook files and sidecars (not its licence, not the replay cases). */
export function seedFiles(system: SeedSystem): string[] {
  const root = join(SEED_REPOS, system);
  const seen = new Set<string>();
  for (const dir of PLAYBOOK_DIRS[system])
    for (const file of filesIn(join(root, dir)))
      if (/\.(ya?ml|json|md)$/i.test(file)) seen.add(file);
  return [...seen].sort();
}

/**
 * A system's real files in one placement, as a folder to validate: every file in one flat folder,
 * every file in `.github/playbooks/` of a repository, or the upstream layout. Returns the
 * repository (the working folder for `github`) and the path to validate from elsewhere.
 */
export function place(system: SeedSystem, placement: Placement): { repo: string; path: string } {
  const repo = makeDir(`pb-seed-${system}-`);
  if (placement === "own") {
    cpSync(join(SEED_REPOS, system), repo, { recursive: true });
    return { repo, path: repo };
  }
  const folder = placement === "flat" ? "flat" : ".github/playbooks";
  for (const file of seedFiles(system))
    write(repo, `${folder}/${basename(file)}`, readFileSync(file, "utf8"));
  return { repo, path: join(repo, folder) };
}

export interface FileVerdict {
  file: string;
  valid: boolean;
  errors: { rule: string; line?: number; message: string }[];
}

/**
 * `validate` of a placement, run from another working folder (the repository itself for
 * `github`, which is validated by its default folders): each file with its errors.
 */
export async function validatePlacement(
  system: SeedSystem,
  placement: Placement,
): Promise<FileVerdict[]> {
  const { repo, path } = place(system, placement);
  const cwd = placement === "github" ? repo : makeDir("pb-elsewhere-");
  const args = placement === "github" ? [] : [path];
  const r = await runCli(["validate", "-f", "json", "--no-library", ...args], cwd);
  const report = JSON.parse(r.out) as {
    files: {
      file: string;
      valid: boolean;
      diagnostics: { rule: string; severity: string; line?: number; message: string }[];
    }[];
  };
  return report.files.map((f) => ({
    file: relative(repo, resolve(cwd, f.file)),
    valid: f.valid,
    errors: f.diagnostics.filter((d) => d.severity === "error"),
  }));
}
