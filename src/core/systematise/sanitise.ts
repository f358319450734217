/**
 * People's text on its way into a drafted playbook: bounded, without control characters, and
 * inert. Every prose field of a step (`description`, `message`, `condition`, `title`, `body`,
 * `advice`, a file's `content`, …) is a template in the format, so `{{ … }}`, `{% … %}` and
 * `${…}` written by people would be filled in (or refused) when the run gets there; here they are
 * broken apart (`{ {`, `{ %`, `$ {`) so that they read the same and are never templates. Mentions
 * and HTML comment markers are made inert the way the engine makes values inert. Bounds apply to
 * the text as written in the playbook, escapes included; a cut never makes a template or mention.
 */
import { inert } from "../engine/render.js";
import { ID_PATTERN, PERMISSIONS } from "../format/schema.js";
import { isTemplated } from "../format/template.js";
import type { Permission } from "../format/types.js";
import { branchNameProblem } from "../util/git-ref.js";

const ID = new RegExp(ID_PATTERN);

/** Characters that change how text reads without being seen: bidi controls, zero-width marks. */
const INVISIBLE = /[\u061C\u200B-\u200F\u202A-\u202E\u2060-\u2069\uFEFF]/g;
/** Halves of a surrogate pair standing alone: not text, and not valid in YAML or JSON output. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/g;

/** Text without control or invisible characters; line breaks kept (as `\n`) only when asked. */
export function stripControls(text: string, keepLines: boolean): string {
  const s = String(text)
    .replace(LONE_SURROGATE, "\uFFFD")
    .replace(/\r\n?/g, "\n")
    .replace(/[\u2028\u2029]/g, "\n")
    .replace(/\t/g, " ")
    .replace(CONTROL, "")
    .replace(INVISIBLE, "");
  return keepLines ? s : s.replace(/\n/g, " ");
}

/** At most `max` characters (never half a surrogate pair), marked with `…` when cut. */
export function bound(text: string, max: number): { text: string; cut: boolean } {
  if (text.length <= max) return { text, cut: false };
  let end = Math.max(0, max - 1);
  const c = text.charCodeAt(end - 1);
  if (c >= 0xd800 && c <= 0xdbff) end--;
  return { text: `${text.slice(0, end).trimEnd()}…`, cut: true };
}

/** `{{`, `{%` and `${` broken apart so that no template starts in the text. */
export function neutraliseTemplates(text: string): string {
  return text.replace(/\{(?=[{%])/g, "{ ").replace(/\$(?=\{)/g, "$ ");
}

/** People's text as one line of prose for a playbook field: bounded, clean, inert. */
export function oneLine(text: string, max: number): string {
  const flat = stripControls(text, false).replace(/\s+/g, " ").trim();
  return bound(inert(neutraliseTemplates(flat)), max).text;
}

/** People's text as a paragraph or more of prose: line breaks kept, bounded, clean, inert. */
export function prose(text: string, max: number): string {
  const clean = stripControls(text, true)
    .split("\n")
    .map((l) => l.replace(/\s+$/, ""))
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
  return bound(inert(neutraliseTemplates(clean)), max).text;
}

/** Whether text holds nothing a template or the engine's inert rendering would act on. */
export function isInertText(text: string): boolean {
  return !isTemplated(text) && !/@[A-Za-z0-9_-]/.test(text) && !text.includes("<!--");
}

/**
 * A recorded key (or a branch label) as an id of the format: kept when it is one; otherwise
 * every run of other characters becomes `_`, leading `_`/`-` go and it is cut to 64 characters;
 * undefined when nothing is left.
 */
export function asId(raw: string, max = 64): string | undefined {
  const s = stripControls(String(raw), false).trim();
  if (s.length <= max && ID.test(s)) return s;
  const cleaned = s
    .replace(/[^A-Za-z0-9_-]+/g, "_")
    .replace(/^[_-]+/, "")
    .slice(0, max)
    .replace(/[_-]+$/, "");
  return cleaned !== "" && ID.test(cleaned) ? cleaned : undefined;
}

/** A GitHub login as written (letters, digits, single hyphens), or undefined. */
export function asLogin(raw: string): string | undefined {
  const s = String(raw).trim();
  return /^[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}$/.test(s) ? s : undefined;
}

/** A role the format knows, or undefined. */
export function asPermission(raw: unknown): Permission | undefined {
  return typeof raw === "string" && (PERMISSIONS as readonly string[]).includes(raw)
    ? (raw as Permission)
    : undefined;
}

/** How a role ranks: read 0 … admin 4. */
export function permissionRank(p: Permission): number {
  return PERMISSIONS.indexOf(p);
}

/** A recorded value for a golden case: a finite number, a boolean, or one bounded, inert line. */
export function asFindingValue(raw: unknown, max: number): string | number | boolean {
  if (typeof raw === "boolean") return raw;
  if (typeof raw === "number" && Number.isFinite(raw)) return raw;
  return bound(inert(neutraliseTemplates(stripControls(String(raw), false).trim())), max).text;
}

/** A branch name safe to name in a playbook as written (no template, a plain, valid git ref). */
export function asRefName(raw: string | undefined): string | undefined {
  if (typeof raw !== "string") return undefined;
  const s = raw.trim();
  if (s.length > 100 || !/^[A-Za-z0-9][A-Za-z0-9._/-]*$/.test(s)) return undefined;
  return branchNameProblem(s) === undefined ? s : undefined;
}
