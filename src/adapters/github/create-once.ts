/**
 * Creating requests (a comment, an issue, a pull request) retried without duplicates.
 *
 * Octokit's retry plugin re-sends a request that failed with a 5xx, POSTs included; when GitHub
 * made the resource and then answered 502, the re-sent POST makes it again. So each creating
 * request goes out with the plugin off for it (`request: { retries: 0 }`, which the plugin
 * honours per request), and the retry happens here: after an answer that leaves it unknown
 * whether GitHub made the resource, the resource is looked for by its key and adopted when found,
 * else created again.
 */

import { outcomeUnknown } from "../../runtime/request-errors.js";

/** Request options that turn off Octokit's retry plugin for one request. */
export const SINGLE_ATTEMPT = { request: { retries: 0 } } as const;

export interface CreateRetry {
  /** Attempts in all (the first included). */
  attempts: number;
  /** The wait before the second attempt; each later one waits twice the one before. */
  delayMs: number;
}

/** As patient as Octokit's own retries for other requests: three tries within a few seconds. */
export const DEFAULT_CREATE_RETRY: CreateRetry = { attempts: 3, delayMs: 1000 };

export interface CreateOnce<T> {
  /** One creating request; it must send `SINGLE_ATTEMPT`'s request options. */
  create: () => Promise<T>;
  /** What an earlier attempt may have made, found by its key (a marker, a head); undefined if none. */
  find: () => Promise<T | undefined>;
  /**
   * A 422 may say the resource exists (a pull request for the head): what it names, adopted, or
   * undefined to let the 422 stand.
   */
  conflict?: (err: unknown) => Promise<T | undefined>;
  retry?: Partial<CreateRetry>;
  /** The wait between attempts (tests pass their own). */
  sleep?: (ms: number) => Promise<void>;
}

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Creates once: the first attempt creates; after an unknown outcome each further attempt (after a
 * growing wait) first looks for what the earlier one may have made. Any other failure, or the last
 * attempt's, is thrown as it came.
 */
export async function createOnce<T>(o: CreateOnce<T>): Promise<T> {
  const { attempts, delayMs } = { ...DEFAULT_CREATE_RETRY, ...o.retry };
  const sleep = o.sleep ?? pause;
  for (let attempt = 1; ; attempt++) {
    try {
      if (attempt > 1) {
        await sleep(delayMs * 2 ** (attempt - 2));
        const found = await o.find();
        if (found !== undefined) return found;
      }
      return await o.create();
    } catch (err) {
      if ((err as { status?: unknown }).status === 422 && o.conflict) {
        const adopted = await o.conflict(err);
        if (adopted !== undefined) return adopted;
        throw err;
      }
      if (!outcomeUnknown(err) || attempt >= attempts) throw err;
    }
  }
}

/** Whether a 422 from `POST /pulls` says a pull request for the head is already open. */
export function pullRequestExists(err: unknown): boolean {
  const e = err as { message?: unknown; response?: { data?: unknown } };
  const data = e.response?.data as { errors?: { message?: unknown }[] } | undefined;
  const texts = [e.message, ...(data?.errors ?? []).map((x) => x.message)];
  return texts.some((t) => typeof t === "string" && /pull request already exists/i.test(t));
}

/** A comment as GitHub lists it, with what tells who wrote it. */
export interface ListedComment {
  id: number;
  body?: string | null;
  created_at: string;
  user: { login: string; type: string } | null;
  performed_via_github_app?: { id: number } | null;
}

interface CommentLister {
  rest: {
    issues: {
      listComments: (params: {
        owner: string;
        repo: string;
        issue_number: number;
        per_page: number;
        page?: number;
      }) => Promise<{ data: unknown; headers: { link?: string } }>;
    };
  };
}

/**
 * An issue's newest comments, oldest first: its last page of 100 (and the page before when the
 * last holds few), at most three requests however long the thread. A comment posted a moment ago
 * is among them.
 */
export async function newestComments(
  octokit: CommentLister,
  at: { owner: string; repo: string; issue: number },
): Promise<ListedComment[]> {
  const read = async (page: number) => {
    const { data, headers } = await octokit.rest.issues.listComments({
      owner: at.owner,
      repo: at.repo,
      issue_number: at.issue,
      per_page: 100,
      ...(page > 1 ? { page } : {}),
    });
    const last = /[?&]page=([0-9]+)>; rel="last"/.exec(String(headers.link ?? ""))?.[1];
    return { comments: data as ListedComment[], last: last ? Number(last) : page };
  };
  const first = await read(1);
  if (first.last <= 1) return first.comments;
  const last = await read(first.last);
  if (last.comments.length >= 20) return last.comments;
  const before = first.last === 2 ? first : await read(first.last - 1);
  return [...before.comments, ...last.comments];
}
