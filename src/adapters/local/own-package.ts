import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The fields of this package's package.json that the CLI and SARIF's tool name. */
export interface OwnPackage {
  name: string;
  version?: string;
  homepage?: string;
  repository?: unknown;
}

/** This package's root folder and its package.json, found once. */
let found: { dir: string; pkg: OwnPackage } | null | undefined;

/**
 * The nearest package.json above this module that names playbook-bot. The module sits at
 * different depths in src/, dist/, the CLI's bundle and the Action's bundle.
 */
function findOwnPackage(): { dir: string; pkg: OwnPackage } | null {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let up = 0; up < 6; up++, dir = dirname(dir)) {
    const file = join(dir, "package.json");
    if (!existsSync(file)) continue;
    const pkg = JSON.parse(readFileSync(file, "utf8")) as Partial<OwnPackage>;
    if (pkg.name === "playbook-bot") return { dir, pkg: pkg as OwnPackage };
  }
  return null;
}

/** This package's package.json. */
export function ownPackage(): OwnPackage | undefined {
  found ??= findOwnPackage();
  return found?.pkg;
}

/** This package's root folder: where its package.json, playbooks/ and schema/ sit. */
export function ownPackageDir(): string | undefined {
  found ??= findOwnPackage();
  return found?.dir;
}
