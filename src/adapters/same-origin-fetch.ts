/**
 * fetch for clients that carry a credential (an API key, a bearer token, a cookie). fetch's own
 * redirect handling drops only `Authorization` and `Cookie` when a redirect leaves the origin:
 * `api-key`, `x-api-key` and any other header would go along to whatever host the server names.
 * Here redirects are followed within the origin the request was sent to only, a bounded number
 * of times; a redirect anywhere else is refused before anything is sent there.
 */

export const DEFAULT_MAX_REDIRECTS = 5;

/** A redirect that would have carried the request's credentials to another origin. */
export class CrossOriginRedirectError extends Error {
  constructor(
    readonly from: string,
    readonly to: string,
  ) {
    // Origins only: a path or query may carry something that is nobody's business in a log.
    super(
      `refused a redirect from ${from} to ${to}: the credentials are for ${from} only (configure the endpoint the server redirects to)`,
    );
    this.name = "CrossOriginRedirectError";
  }
}

/** Whether `err` or one of its causes is a refused cross-origin redirect (the SDKs wrap it). */
export function crossOriginRedirectIn(err: unknown): CrossOriginRedirectError | undefined {
  for (let e = err, depth = 0; e && depth < 5; depth++) {
    if (e instanceof CrossOriginRedirectError) return e;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Headers that describe a body, dropped with it when a redirect turns the request into a GET. */
const BODY_HEADERS = ["content-type", "content-length", "content-encoding", "content-language"];

/** A body that can be sent again as it is (a stream cannot). */
function replayable(body: RequestInit["body"]): boolean {
  return (
    body === undefined ||
    body === null ||
    typeof body === "string" ||
    body instanceof URLSearchParams ||
    body instanceof Blob ||
    body instanceof ArrayBuffer ||
    ArrayBuffer.isView(body)
  );
}

/** The request a redirect asks for, as fetch would make it (303, and 301/302 after a POST, become a GET). */
function redirected(status: number, init: RequestInit): RequestInit {
  const method = (init.method ?? "GET").toUpperCase();
  const toGet =
    (status === 303 && method !== "HEAD") ||
    ((status === 301 || status === 302) && method === "POST");
  if (!toGet) {
    if (!replayable(init.body))
      throw new TypeError(
        `cannot follow a ${status} redirect: the request body cannot be sent twice`,
      );
    return init;
  }
  const headers = new Headers(init.headers);
  for (const h of BODY_HEADERS) headers.delete(h);
  return { ...init, method: "GET", body: undefined, headers };
}

export interface SameOriginFetchOptions {
  /** The fetch underneath (default: the global one, looked up at each call). */
  fetch?: typeof fetch;
  maxRedirects?: number;
}

/** A fetch that follows same-origin redirects only; see the module comment. */
export function sameOriginFetch(options: SameOriginFetchOptions = {}): typeof fetch {
  const maxRedirects = options.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  return async (input, init) => {
    const base = options.fetch ?? globalThis.fetch;
    let request: RequestInit = { ...init };
    let target: string | Request;
    if (input instanceof Request) {
      const r = new Request(input, init);
      target = r;
      request = { method: r.method, headers: r.headers, signal: r.signal };
      // A Request's body is a stream: it goes once; a redirect that needs it again is refused.
      if (r.body) request.body = r.body;
    } else target = input instanceof URL ? input.href : input;
    const origin = new URL(typeof target === "string" ? target : target.url).origin;
    for (let hop = 0; ; hop++) {
      const res = await base(target, {
        ...(typeof target === "string" ? request : {}),
        redirect: "manual",
      });
      const location = res.headers.get("location");
      if (res.status < 300 || res.status >= 400 || res.status === 304 || location === null)
        return res;
      const next = new URL(location, typeof target === "string" ? target : target.url);
      if (next.origin !== origin) {
        await res.body?.cancel();
        throw new CrossOriginRedirectError(origin, next.origin);
      }
      if (hop >= maxRedirects) {
        await res.body?.cancel();
        throw new TypeError(`more than ${maxRedirects} redirects from ${origin}`);
      }
      await res.body?.cancel();
      request = redirected(res.status, request);
      target = next.href;
    }
  };
}
