import type { Probot } from "probot";
import { appOctokit } from "./payloads.js";
import type { Octokit } from "../github/octokit-port.js";
import type { Coordination } from "../../runtime/coordination.js";
import {
  WAITING_LABEL,
  wakeUpKey,
  type IssueAddress,
  type IssueWakeUp,
  type WakeUpTimer,
} from "../../runtime/run-service/wake-ups.js";

/** At most this many repositories per installation are looked through for waiting issues at start. */
const MAX_SCANNED_REPOSITORIES = 1000;
/** And at most this many pages (of 100) of each repository's waiting issues. */
const MAX_WAITING_ISSUE_PAGES = 10;

export interface RecoverWaitingDeps {
  app: Probot;
  coordination: Coordination;
  clock: () => Date;
  timer: WakeUpTimer;
  installationOctokit(installation: number): Promise<Octokit>;
}

/**
 * At start: the issues that carry the waiting label get a tick at once (it sets their runs'
 * wake-ups again), so a process that lost them (the in-memory store) loses no time.
 */
export async function recoverWaiting(d: RecoverWaitingDeps): Promise<void> {
  const appClient = await appOctokit(d.app);
  const installations = await appClient.paginate(appClient.rest.apps.listInstallations, {
    per_page: 100,
  });
  let found = 0;
  for (const installation of installations) {
    const octokit = await d.installationOctokit(installation.id);
    const repositories = await octokit.paginate(
      octokit.rest.apps.listReposAccessibleToInstallation,
      {
        per_page: 100,
      },
    );
    if (repositories.length > MAX_SCANNED_REPOSITORIES)
      d.app.log.warn(
        `installation ${installation.id}: only the first ${MAX_SCANNED_REPOSITORIES} of ${repositories.length} repositories are looked through for issues waiting for a time`,
      );
    for (const r of repositories.slice(0, MAX_SCANNED_REPOSITORIES)) {
      for (const number of await waitingIssues(octokit, r.owner.login, r.name)) {
        const address: IssueAddress = {
          installation: installation.id,
          repository: r.id,
          owner: r.owner.login,
          repo: r.name,
          defaultBranch: r.default_branch,
          issue: number,
        };
        const wake: IssueWakeUp = { ...address, run: "" };
        await d.coordination.schedule(wakeUpKey(address, ""), d.clock().getTime(), wake);
        found++;
      }
    }
  }
  if (found) {
    d.app.log.info(`${found} issue(s) wait for a time: each gets a tick now`);
    d.timer.arm(d.clock().getTime());
  }
}

/** The numbers of a repository's issues that carry the waiting label (a bounded listing). */
async function waitingIssues(octokit: Octokit, owner: string, repo: string): Promise<number[]> {
  let pages = 0;
  const issues = await octokit.paginate(
    octokit.rest.issues.listForRepo,
    { owner, repo, labels: WAITING_LABEL.name, state: "all", per_page: 100 },
    (response, done) => {
      if (++pages >= MAX_WAITING_ISSUE_PAGES) done();
      return response.data;
    },
  );
  return issues.map((i) => i.number);
}
