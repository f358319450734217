import type { IncomingMessage } from "node:http";

/**
 * A request body read within limits by a route that checks credentials on the raw bytes (the
 * webhook route, the alert routes): senders without credentials must not fill the process's
 * memory, whether with one large body, many bodies at once, or bodies that never end.
 */

/** A refusal: the status, and the reason logged and answered (never the payload). */
export class HttpRefusal extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** The unverified bytes held by all the route's requests, and by one. */
export class Held {
  bytes = 0;
  constructor(readonly max: number) {}
}

export interface ReadLimits {
  max: number;
  held: Held;
  timeoutMs: number;
}

const tooLarge = (max: number) =>
  new HttpRefusal(413, `the body is larger than ${max} bytes (the route's cap)`, {
    connection: "close",
  });
const busy = (limits: ReadLimits) =>
  new HttpRefusal(503, `unverified bodies fill the ${limits.held.max} bytes held at once`, {
    connection: "close",
    "retry-after": String(Math.ceil(limits.timeoutMs / 1000)),
  });

/**
 * The body, read as it streams in and refused once it passes `max` bytes (413), once the bytes of
 * every unverified body together would pass the budget (503), or when it is not complete within
 * the timeout (408): what is past a limit is never kept. `mine` counts what this request holds of
 * the budget, given back by the caller.
 */
export function readCapped(
  req: IncomingMessage,
  limits: ReadLimits,
  size: { bytes: number },
  mine: { bytes: number },
): Promise<Buffer> {
  const declared = Number(req.headers["content-length"] ?? "0");
  if (declared > limits.max) {
    size.bytes = declared;
    return Promise.reject(tooLarge(limits.max));
  }
  // Refused at once, unread, when what it says it brings does not fit.
  if (limits.held.bytes + Math.max(1, declared) > limits.held.max)
    return Promise.reject(busy(limits));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const stop = (err?: HttpRefusal) => {
      clearTimeout(timer);
      req.off("data", onData).off("end", onEnd).off("error", onError).off("close", onClose);
      if (!err) return;
      chunks.length = 0;
      req.resume(); // what still comes is dropped, and the connection closes after the answer
      reject(err);
    };
    const onData = (c: Buffer) => {
      size.bytes += c.length;
      if (size.bytes > limits.max) return stop(tooLarge(limits.max));
      if (limits.held.bytes + c.length > limits.held.max) return stop(busy(limits));
      limits.held.bytes += c.length;
      mine.bytes += c.length;
      chunks.push(c);
    };
    const onEnd = () => {
      stop();
      resolve(Buffer.concat(chunks));
    };
    const onError = () => stop(new HttpRefusal(400, "the connection failed before the body ended"));
    const onClose = () => stop(new HttpRefusal(400, "the connection closed before the body ended"));
    const timer = setTimeout(
      () =>
        stop(
          new HttpRefusal(408, `the body did not arrive within ${limits.timeoutMs / 1000} s`, {
            connection: "close",
          }),
        ),
      limits.timeoutMs,
    );
    req.on("data", onData).once("end", onEnd).once("error", onError).once("close", onClose);
  });
}
