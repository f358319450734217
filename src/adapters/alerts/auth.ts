import { createHmac, timingSafeEqual } from "node:crypto";
import type { SourceAuth } from "./config.js";

/** Equal-length digests compared in constant time (never the strings themselves). */
function sameSecret(given: Buffer, expected: Buffer): boolean {
  return given.length === expected.length && timingSafeEqual(given, expected);
}

const MAX_SKEW_MS = 5 * 60_000;

/**
 * Whether a request carries valid credentials for its source, checked on the raw bytes before
 * anything parses them: a bearer token, or an HMAC-SHA256 of the body (Grafana: hex, optionally of
 * `timestamp:body`; GitHub style: `sha256=<hex>`). Two secrets are accepted during rotation.
 */
export function verifyRequest(
  auth: SourceAuth,
  headers: Record<string, string | string[] | undefined>,
  body: Buffer,
  now = Date.now(),
): boolean {
  const header = (name: string): string => {
    const v = headers[name];
    return (Array.isArray(v) ? v[0] : v) ?? "";
  };
  if (auth.kind === "bearer") {
    const m = /^Bearer\s+(.+)$/i.exec(header("authorization").trim());
    if (!m) return false;
    const given = createHmac("sha256", "compare")
      .update(m[1] as string)
      .digest();
    return auth.secrets.some((s) =>
      sameSecret(given, createHmac("sha256", "compare").update(s).digest()),
    );
  }
  const raw = header(auth.signatureHeader)
    .trim()
    .replace(/^sha256=/i, "")
    .toLowerCase();
  if (!/^[0-9a-f]{64}$/.test(raw)) return false;
  const given = Buffer.from(raw, "hex");
  let signed = body;
  if (auth.timestampHeader) {
    const ts = header(auth.timestampHeader).trim();
    if (!/^[0-9]+$/.test(ts) || Math.abs(now - Number(ts) * 1000) > MAX_SKEW_MS) return false;
    signed = Buffer.concat([Buffer.from(`${ts}:`), body]);
  }
  return auth.secrets.some((s) =>
    sameSecret(given, createHmac("sha256", s).update(signed).digest()),
  );
}
