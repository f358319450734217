/**
 * What a failed GitHub request says, in one place: whether GitHub answered (and how), timed out,
 * or could not be reached. The retry layer (octokit-pacing.ts) re-sends only what GitHub answered
 * with a 5xx; creates-once (create-once.ts) looks for what a request may have made unless GitHub
 * refused it; the wake-up timer (wake-ups.ts) leaves its work to other replicas when this one
 * cannot reach GitHub.
 */

/** How a request failed. */
export type RequestFailure =
  /** GitHub answered 1xx–4xx: it refused the request, which made nothing. */
  | "refused"
  /** GitHub answered with a 5xx: it may have done the work all the same. */
  | "server-error"
  /** No answer within the deadline (the request timeout answers 504 without a response). */
  | "timeout"
  /** GitHub was not reached or the connection broke: DNS, refused, reset, TLS. */
  | "unreachable"
  /** No status and no connection error: not known to be a request's failure at all. */
  | "unknown";

/** Error codes of a connection that failed (Node's sockets and DNS, undici's fetch). */
const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "ETIMEDOUT",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENETDOWN",
  "EPIPE",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
  "UND_ERR_SOCKET",
]);

interface ErrorFields {
  code?: unknown;
  status?: unknown;
  timeout?: unknown;
  unreachable?: unknown;
  response?: unknown;
  cause?: unknown;
}

/** One error's own fields, without its causes. */
function ownFailure(err: unknown): RequestFailure {
  if (!err || typeof err !== "object") return "unknown";
  const e = err as ErrorFields;
  if (typeof e.code === "string" && NETWORK_CODES.has(e.code)) return "unreachable";
  if (e.unreachable === true) return "unreachable";
  if (e.timeout === true) return "timeout";
  if (typeof e.status !== "number") return "unknown";
  if (e.status < 500) return "refused";
  // @octokit/request reports what fetch threw as a 500 without a response: no answer came.
  return e.response !== undefined ? "server-error" : "unreachable";
}

/**
 * How a request failed: the error's own status or code, else the first of its causes (a few deep)
 * that tells; `unknown` when none does.
 */
export function requestFailure(err: unknown): RequestFailure {
  let e: unknown = err;
  for (let depth = 0; depth < 5 && e && typeof e === "object"; depth++) {
    const own = ownFailure(e);
    if (own !== "unknown") return own;
    e = (e as ErrorFields).cause;
  }
  return "unknown";
}

/** GitHub answered with a 5xx (a response came): worth sending again when that is safe. */
export function isServerError(err: unknown): boolean {
  return ownFailure(err) === "server-error";
}

/**
 * Whether a failed request may have taken effect on GitHub all the same: anything but GitHub's
 * refusal (a 4xx never made anything) — a 5xx, a timeout, no answer, an error without a status.
 */
export function outcomeUnknown(err: unknown): boolean {
  return ownFailure(err) !== "refused";
}

/**
 * Whether GitHub could not be reached or did not answer (in the error or its causes): a connection
 * that failed, a request that timed out, or GitHub's own 5xx. Not a lock held, a 4xx, or a
 * playbook's fault: those are the work's, not this process's.
 */
export function isNetworkError(err: unknown): boolean {
  const failure = requestFailure(err);
  return failure === "unreachable" || failure === "timeout" || failure === "server-error";
}
