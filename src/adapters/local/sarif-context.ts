import { execFileSync } from "node:child_process";
import { realpathSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { pathToFileURL } from "node:url";
import type { SarifOptions, SarifRoot } from "../../core/format/report/sarif.js";
import { ownPackage } from "./own-package.js";

/** How the repository root was found: what docs/cli.md's SARIF section promises, in this order. */
export type RootSource = "git" | "GITHUB_WORKSPACE" | "working directory";

export interface RepositoryRoot {
  dir: string;
  source: RootSource;
}

/**
 * The root of the repository the working directory is in: git's top level when git knows one,
 * else the workflow's `GITHUB_WORKSPACE`, else the working directory itself.
 */
export function findRepositoryRoot(cwd: string, env: NodeJS.ProcessEnv): RepositoryRoot {
  try {
    const top = execFileSync("git", ["rev-parse", "--show-toplevel"], {
      cwd,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
      timeout: 10_000,
    }).trim();
    if (top) return { dir: top, source: "git" };
  } catch {
    // Not a git work tree, or no git: the next guess.
  }
  if (env.GITHUB_WORKSPACE)
    return { dir: resolve(env.GITHUB_WORKSPACE), source: "GITHUB_WORKSPACE" };
  return { dir: resolve(cwd), source: "working directory" };
}

/** A path with symlinks resolved, as far as it exists (a missing file keeps its name). */
function real(path: string): string {
  const missing: string[] = [];
  for (let dir = resolve(path); ; dir = dirname(dir)) {
    try {
      return join(realpathSync(dir), ...missing.reverse());
    } catch {
      if (dirname(dir) === dir) return resolve(path);
      missing.push(basename(dir));
    }
  }
}

/**
 * Files as code scanning wants them: paths from the repository root, symlinks resolved (git
 * reports the root's real path, and code scanning cannot show a result in a symlink); a file
 * outside the root keeps its absolute `file:` URL.
 */
export function sarifRoot(rootDir: string, cwd: string): SarifRoot {
  const root = real(rootDir);
  const rootUrl = pathToFileURL(root).href;
  return {
    uri: rootUrl.endsWith("/") ? rootUrl : `${rootUrl}/`,
    locate(file) {
      const abs = real(resolve(cwd, file));
      const rel = relative(root, abs);
      if (rel === "" || rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel))
        return pathToFileURL(abs).href;
      return rel.split(sep).join("/");
    },
  };
}

/** A package.json `repository` as a browsable https URL (GitHub's forms), if it is one. */
export function repositoryUrlOf(repository: unknown): string | undefined {
  const raw =
    typeof repository === "string"
      ? repository
      : typeof repository === "object" && repository !== null && "url" in repository
        ? String((repository as { url: unknown }).url)
        : undefined;
  if (!raw) return undefined;
  const short = /^(?:github:)?([\w.-]+\/[\w.-]+)$/.exec(raw);
  if (short) return `https://github.com/${short[1]?.replace(/\.git$/, "")}`;
  const url = /^(?:git\+)?(?:https?|git|ssh):\/\/(?:[^@/]+@)?([^/]+)\/(.+?)(?:\.git)?\/?$/.exec(
    raw,
  );
  return url ? `https://${url[1]}/${url[2]}` : undefined;
}

/** This package's version, home page and repository (from its package.json), for SARIF's tool. */
export function toolInfo(): Omit<SarifOptions, "root"> {
  const pkg = ownPackage();
  if (!pkg) return { version: "0.0.0" };
  const repositoryUrl = repositoryUrlOf(pkg.repository);
  return {
    version: pkg.version ?? "0.0.0",
    ...(repositoryUrl ? { repositoryUrl } : {}),
    ...(pkg.homepage ? { homepage: pkg.homepage } : {}),
  };
}
