import { execFileSync } from "node:child_process";
import { commandOctokit } from "../../adapters/github/octokit-pacing.js";
import { MockAiAdapter } from "../../runtime/ai.js";
import { OctokitPort } from "../../adapters/github/octokit-port.js";

/** owner/repo of a GitHub remote URL (https or ssh), or undefined. */
export function parseGitHubRemote(url: string): { owner: string; repo: string } | undefined {
  const m = /github\.com[:/]([A-Za-z0-9_.-]+)\/([A-Za-z0-9_.-]+?)(?:\.git)?\/?$/.exec(url.trim());
  return m ? { owner: m[1] as string, repo: m[2] as string } : undefined;
}

/**
 * GitHub effects for a local run, when `GITHUB_TOKEN` is set and the work tree's `origin` is on
 * GitHub: the same port the app uses, so pull requests, issues, labels and dispatches are real.
 */
export async function localGitHub(
  repoDir: string,
  env: NodeJS.ProcessEnv,
): Promise<OctokitPort | undefined> {
  const token = env.GITHUB_TOKEN;
  if (!token) return undefined;
  let url: string;
  try {
    url = execFileSync("git", ["remote", "get-url", "origin"], {
      cwd: repoDir,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    });
  } catch {
    return undefined;
  }
  const remote = parseGitHubRemote(url);
  if (!remote) return undefined;
  const octokit = commandOctokit(token);
  const { data } = await octokit.rest.repos.get({ owner: remote.owner, repo: remote.repo });
  return new OctokitPort({
    octokit,
    owner: remote.owner,
    repo: remote.repo,
    defaultBranch: data.default_branch,
    appId: 0,
    ai: new MockAiAdapter(),
  });
}
