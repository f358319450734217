import {
  closeSync,
  constants,
  fstatSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readSync,
  renameSync,
  rmSync,
  writeSync,
} from "node:fs";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";

/**
 * The one way the CLI writes into a checkout (its run store, traces): only through real folders.
 * A checkout is written by whoever wrote the branch, so `.playbook-runs` or a folder under it may
 * be a link planted to send the bot's writes elsewhere (a home folder, another repository). Every
 * folder from the root down is checked with `lstat` and made when missing, and files are opened
 * with `O_NOFOLLOW`: a link on the way is refused, never followed.
 */
export class WriteRefusedError extends Error {
  constructor(
    readonly path: string,
    why: string,
  ) {
    super(
      `${path}: ${why}; writes are never followed through a link or into anything but a file — remove it and try again`,
    );
  }
}

const NO_FOLLOW = constants.O_NOFOLLOW ?? 0;
// A pipe or device planted where a file should be must not block the open (fstat then refuses it).
const NON_BLOCK = constants.O_NONBLOCK ?? 0;

/** The folders from the root (excluded) down to `dir`, or a refusal when `dir` leaves the root. */
function foldersBelow(root: string, dir: string): string[] {
  const rel = relative(root, dir);
  if (rel.startsWith("..") || isAbsolute(rel))
    throw new WriteRefusedError(dir, "the folder is outside the checkout");
  const out: string[] = [];
  let at = root;
  for (const part of rel.split(sep).filter(Boolean)) out.push((at = join(at, part)));
  return out;
}

function lstatOrUndefined(path: string) {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

/** Make `dir` and the folders above it up to `root`, each a real folder (never a link). */
export function ensureFolderInside(dir: string, root: string): void {
  for (const folder of foldersBelow(resolve(root), resolve(dir))) {
    let stat = lstatOrUndefined(folder);
    if (!stat) {
      try {
        mkdirSync(folder, { mode: 0o755 });
      } catch (err) {
        // Another process may have made it between the look and the make: look again.
        if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      }
      stat = lstatSync(folder);
    }
    if (stat.isSymbolicLink()) throw new WriteRefusedError(folder, "the folder is a symbolic link");
    if (!stat.isDirectory()) throw new WriteRefusedError(folder, "this is not a folder");
  }
}

/** Open a file for writing without following a link; what is opened must be a regular file. */
function openFile(file: string, flags: number): number {
  let fd: number;
  try {
    fd = openSync(file, flags | NO_FOLLOW | NON_BLOCK, 0o644);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ELOOP") throw new WriteRefusedError(file, "the file is a symbolic link");
    throw err;
  }
  if (!fstatSync(fd).isFile()) {
    closeSync(fd);
    throw new WriteRefusedError(file, "this is not a regular file");
  }
  return fd;
}

/**
 * Write a file inside `root` so that a crash leaves either the old or the new content, never half
 * of one. The new content goes to a fresh temporary file (never an existing one) and is renamed
 * over the name: a link that stood there is replaced, not written through.
 */
export function writeAtomicInside(file: string, text: string, root: string): void {
  ensureFolderInside(dirname(file), root);
  const tmp = `${file}.tmp-${process.pid}`;
  rmSync(tmp, { force: true });
  const fd = openFile(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, file);
}

/** Append to a file inside `root`; a line a crash cut short is ended first, so it stays its own. */
export function appendLinesInside(file: string, text: string, root: string): void {
  ensureFolderInside(dirname(file), root);
  const fd = openFile(file, constants.O_RDWR | constants.O_APPEND | constants.O_CREAT);
  try {
    const size = fstatSync(fd).size;
    const last = Buffer.alloc(1);
    const midLine = size > 0 && readSync(fd, last, 0, 1, size - 1) === 1 && last[0] !== 0x0a;
    writeSync(fd, midLine ? `\n${text}` : text);
  } finally {
    closeSync(fd);
  }
}

/** Move a file to another name inside `root` (a link at either name is moved or replaced itself). */
export function moveInside(from: string, to: string, root: string): void {
  ensureFolderInside(dirname(to), root);
  renameSync(from, to);
}
