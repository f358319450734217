import {
  closeSync,
  constants,
  existsSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  realpathSync,
  writeFileSync,
} from "node:fs";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import picomatch from "picomatch";
import { glob } from "tinyglobby";
import type { RefusedSource } from "../../core/format/source.js";

/**
 * The one way playbook-related files are read from disk: as data. A playbook folder is written by
 * whoever wrote the branch (a fork's pull request), so a file is read only when it is a regular
 * file, reached without following a link at its own name, that resolves inside the root (the
 * checkout or the folder given), and no larger than the cap. Anything else is a refusal that names
 * the file and the rule it broke — never a crash, never a hang.
 *
 * A link whose own name is the file is refused wherever it points (the same answer inside and
 * outside the root, and what `O_NOFOLLOW` enforces at open). A linked folder on the way is
 * followed only while the real path stays inside the root.
 */

/** The cap when a caller names none: a playbook is a few kilobytes, the validator's limit 1 MiB. */
export const DEFAULT_MAX_BYTES = 1024 * 1024;

export type RefusalRule = "missing" | "symlink" | "outside-root" | "not-regular" | "too-large";

export interface FileRefusal {
  file: string;
  rule: RefusalRule;
  message: string;
  hint: string;
}

/** A file a command cannot do without (a config, an alert) that was refused. */
export class FileRefusedError extends Error {
  constructor(
    readonly what: string,
    readonly refusal: FileRefusal,
  ) {
    super(`${what} ${refusal.file}: ${refusal.message} (${refusal.rule}); ${refusal.hint}`);
  }
}

export type FileRead = { ok: true; bytes: Buffer } | { ok: false; refusal: FileRefusal };

export interface ReadOptions {
  /** The folder the file must stay in, links resolved. */
  root: string;
  maxBytes?: number;
}

// O_NOFOLLOW refuses a link at the last component; O_NONBLOCK keeps a FIFO from blocking the open
// (the descriptor's fstat then refuses it). Both are 0 where the platform lacks them.
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

const HINTS: Record<RefusalRule, string> = {
  missing: "check the path",
  symlink: "commit the file itself rather than a link to it",
  "outside-root": "keep playbooks and the files they use inside the repository",
  "not-regular": "only regular files are read, never a folder, device, named pipe or socket",
  "too-large": "split the procedure into several playbooks joined by delegate or handoff",
};

function refuse(file: string, rule: RefusalRule, message: string): FileRead {
  return { ok: false, refusal: { file, rule, message, hint: HINTS[rule] } };
}

function inside(root: string, target: string): boolean {
  const rel = relative(root, target);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

function kindOf(stat: { isDirectory(): boolean; isFIFO(): boolean; isSocket(): boolean }): string {
  if (stat.isDirectory()) return "a folder";
  if (stat.isFIFO()) return "a named pipe (FIFO)";
  if (stat.isSocket()) return "a socket";
  return "a device";
}

function realOrUndefined(path: string): string | undefined {
  try {
    // The system's realpath(3): one call, where Node's own walks the path a link at a time.
    return realpathSync.native(path);
  } catch {
    return undefined;
  }
}

/** Read a file as data under the rules above: its bytes (at most `maxBytes`), or a refusal. */
export function readConfined(file: string, options: ReadOptions): FileRead {
  const abs = resolve(file);
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  let link;
  try {
    link = lstatSync(abs);
  } catch {
    return refuse(file, "missing", "file does not exist or cannot be read");
  }
  if (link.isSymbolicLink())
    return refuse(file, "symlink", "file is a symbolic link; links are not followed");
  if (!link.isFile()) return refuse(file, "not-regular", `file is ${kindOf(link)}, not a file`);
  const root = realOrUndefined(options.root) ?? resolve(options.root);
  const real = realOrUndefined(abs);
  if (real === undefined || !inside(root, real))
    return refuse(file, "outside-root", "file resolves outside the folder it was read from");
  return readOpened(file, real, maxBytes, link);
}

function readOpened(
  file: string,
  real: string,
  maxBytes: number,
  checked: { dev: number; ino: number },
): FileRead {
  let fd: number;
  try {
    fd = openSync(real, OPEN_FLAGS);
  } catch (err) {
    // ELOOP: the name became a link between the check and the open.
    if ((err as NodeJS.ErrnoException).code === "ELOOP")
      return refuse(file, "symlink", "file is a symbolic link; links are not followed");
    return refuse(file, "missing", "file does not exist or cannot be read");
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return refuse(file, "not-regular", `file is ${kindOf(stat)}, not a file`);
    // A folder on the way swapped for a link after the checks opens another file: refused.
    if (stat.dev !== checked.dev || stat.ino !== checked.ino)
      return refuse(file, "outside-root", "file changed while it was being read");
    // The size is what was read, one byte past the cap at most; stat's size is not trusted.
    // Scratch space: only the bytes read into it are copied out, so it need not be zeroed.
    const buffer = Buffer.allocUnsafe(Math.min(maxBytes + 1, 64 * 1024));
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const n = readSync(fd, buffer, 0, Math.min(buffer.length, maxBytes + 1 - total), null);
      if (n === 0) break;
      chunks.push(Buffer.from(buffer.subarray(0, n)));
      total += n;
      if (total > maxBytes)
        return refuse(file, "too-large", `file is more than the ${maxBytes} bytes it may be`);
    }
    return { ok: true, bytes: Buffer.concat(chunks, total) };
  } finally {
    closeSync(fd);
  }
}

/**
 * Whether a file would be read under the rules above (size aside), without reading it: what
 * validation asks of a template or sidecar, so that it agrees with the run that reads it.
 */
export function confinedFileExists(file: string, root: string): boolean {
  try {
    const abs = resolve(file);
    const link = lstatSync(abs);
    if (link.isSymbolicLink() || !link.isFile()) return false;
    return inside(realpathSync.native(root), realpathSync.native(abs));
  } catch {
    return false;
  }
}

/** A file's text, or undefined when it is refused (for optional files: sidecars, templates). */
export function readConfinedText(file: string, options: ReadOptions): string | undefined {
  const read = readConfined(file, options);
  return read.ok ? read.bytes.toString("utf8") : undefined;
}

/** What the validator reads for a playbook file: its bytes, or the refusal as its finding. */
export function playbookSource(file: string, options: ReadOptions): Uint8Array | RefusedSource {
  const read = readConfined(file, options);
  return read.ok
    ? read.bytes
    : { refused: { message: read.refusal.message, hint: read.refusal.hint } };
}

/** The root for a file given on the command line: the working folder, or the file's own folder. */
export function rootFor(file: string, cwd: string): string {
  const abs = resolve(cwd, file);
  return inside(resolve(cwd), abs) ? cwd : resolve(abs, "..");
}

/** The nearest folder at or above `dir` holding `.git`: the repository it lies in. */
function repositoryOf(dir: string): string | undefined {
  for (let at = resolve(dir), n = 0; n < 64; n++) {
    if (existsSync(join(at, ".git"))) return at;
    const up = resolve(at, "..");
    if (up === at) return undefined;
    at = up;
  }
  return undefined;
}

/**
 * The folder a playbook's sidecars and paired files are read within, whatever the working
 * folder: the file's repository; outside any, the working folder when the file is in it, or the
 * folder two above the file's (a system's own layout climbs so far: Mindscape keeps its SOPs in
 * `specs/../../i18n/playbooks/`), whichever holds the other.
 */
export function sidecarRoot(file: string, cwd: string): string {
  const abs = resolve(cwd, file);
  const repo = repositoryOf(resolve(abs, ".."));
  if (repo) return repo;
  const root = rootFor(abs, cwd);
  const layout = resolve(abs, "../../..");
  return inside(layout, root) ? layout : root;
}

export interface ListOptions {
  ignore?: string[];
  dot?: boolean;
}

/**
 * The files under `dir` that match `patterns`, as paths relative to it: regular files found
 * without walking linked folders, and — so that each is refused with a finding rather than
 * skipped in silence — the links, pipes, sockets and devices whose names match.
 */
export async function filesUnder(
  dir: string,
  patterns: string[],
  options: ListOptions = {},
): Promise<string[]> {
  const common = { cwd: dir, ignore: options.ignore ?? [], dot: options.dot ?? false };
  const walk = { ...common, followSymbolicLinks: false };
  const regular = await glob(patterns, walk);
  const folders: string[] = [];
  // Only the folders a pattern can reach are looked through: its static base and below.
  for (const base of new Set(patterns.map((p) => resolve(dir, picomatch.scan(p).base)))) {
    const under = await glob(["**"], { ...walk, cwd: base, onlyDirectories: true });
    folders.push(base, ...under.map((f) => join(base, f)));
  }
  const matches = picomatch(patterns, { dot: common.dot, ignore: common.ignore });
  const special: string[] = [];
  for (const folder of new Set(folders)) {
    let entries;
    try {
      entries = readdirSync(folder, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      if (entry.isFile() || entry.isDirectory()) continue;
      const abs = join(folder, entry.name);
      const rel = relative(dir, abs).split(sep).join("/");
      // A pattern is written from `dir`, or as an absolute path.
      if (matches(rel) || matches(abs.split(sep).join("/"))) special.push(rel);
    }
  }
  return [...new Set([...regular, ...special])].sort();
}

// A report's file: created or emptied, never reached through a link at its name; a named pipe
// without a reader fails at open (ENXIO) instead of blocking.
const WRITE_FLAGS =
  constants.O_WRONLY |
  constants.O_CREAT |
  constants.O_TRUNC |
  (constants.O_NOFOLLOW ?? 0) |
  (constants.O_NONBLOCK ?? 0);

/**
 * Writes a report (SARIF, JUnit, a trace) where a person or a workflow named it, as data too: the
 * checkout may be a fork's, and a link planted at the report's name would have the write land on
 * a file elsewhere (a later step's script). The name must not be a link and must be a regular file
 * once opened; given a root, the folder must resolve inside it. Throws, saying why, otherwise.
 */
export function writeReportFile(file: string, text: string, root?: string): void {
  const abs = resolve(file);
  if (root !== undefined) {
    let existing = dirname(abs);
    while (!existsSync(existing) && dirname(existing) !== existing) existing = dirname(existing);
    const folder = realOrUndefined(existing);
    if (folder === undefined || !inside(realOrUndefined(root) ?? resolve(root), folder))
      throw new Error(`${file}: its folder resolves outside ${root}; name a file inside it`);
  }
  mkdirSync(dirname(abs), { recursive: true });
  let fd: number;
  try {
    fd = openSync(abs, WRITE_FLAGS, 0o644);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ELOOP")
      throw new Error(`${file} is a symbolic link: a report is not written through a link`);
    if (code === "ENXIO") throw new Error(`${file} is a named pipe (FIFO), not a file`);
    throw err;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new Error(`${file} is ${kindOf(stat)}, not a file`);
    writeFileSync(fd, text);
  } finally {
    closeSync(fd);
  }
}
