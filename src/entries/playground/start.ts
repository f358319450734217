/**
 * Starting the playground, as `playbook-bot playground [--port N] [--playbooks DIR]` and
 * `npm start` without GitHub credentials do: a folder's playbooks (and the templates beside
 * them) become the sandbox repository's `.github/playbooks/`; the bundled library is there as in
 * the app. Nothing in the folder is changed.
 */
import { existsSync, statSync } from "node:fs";
import { relative, resolve } from "node:path";
import { PLAYBOOK_DIR } from "../../adapters/github/discovery.js";
import { filesUnder, readConfined, type FileRefusal } from "../../adapters/local/safe-files.js";
import { Playground } from "./server.js";

/** Files a folder gives the sandbox at most, and the bytes of one. */
const MAX_FILES = 300;
const MAX_FILE_BYTES = 1024 * 1024;

export interface PlaygroundIo {
  out: (text: string) => void;
  err: (text: string) => void;
  cwd: string;
}

/**
 * The sandbox repository's files from a folder: its YAML and Markdown (templates), bounded, read
 * as data inside the folder. `skipped` are files over the count limit; `refused` the files not
 * read (a link, a device or pipe, a file over the size cap), each with its reason.
 */
export async function folderFiles(
  dir: string,
): Promise<{ files: Record<string, string>; skipped: string[]; refused: FileRefusal[] }> {
  // A linked folder is not walked (it may lead out of the folder given); links, pipes and devices
  // are listed, and refused when read.
  const paths = await filesUnder(dir, ["**/*.yml", "**/*.yaml", "**/*.md", "**/*.json"], {
    ignore: ["**/node_modules/**"],
  });
  const files: Record<string, string> = {};
  const skipped: string[] = [];
  const refused: FileRefusal[] = [];
  for (const path of paths.sort()) {
    if (Object.keys(files).length >= MAX_FILES) {
      skipped.push(path);
      continue;
    }
    const read = readConfined(resolve(dir, path), { root: dir, maxBytes: MAX_FILE_BYTES });
    if (read.ok) files[`${PLAYBOOK_DIR}${path}`] = read.bytes.toString("utf8");
    else refused.push({ ...read.refusal, file: path });
  }
  return { files, skipped, refused };
}

/** Starts the playground; resolves with it running (the caller keeps the process alive). */
export async function startPlayground(
  opts: { port: number; playbooks?: string },
  io: PlaygroundIo,
): Promise<Playground> {
  const dir = resolve(io.cwd, opts.playbooks ?? ".github/playbooks");
  const named = opts.playbooks !== undefined;
  if (named && !(existsSync(dir) && statSync(dir).isDirectory()))
    throw new Error(`--playbooks ${opts.playbooks}: no such folder`);
  const { files, skipped, refused } = existsSync(dir)
    ? await folderFiles(dir)
    : { files: {}, skipped: [], refused: [] };
  const playground = await Playground.start({
    port: opts.port,
    files: { "README.md": "# sandbox\n", ...files },
  });
  const count = Object.keys(files).filter((f) => /\.ya?ml$/.test(f)).length;
  io.out(
    `Playbook Bot playground: ${playground.url}/\n` +
      `  the sandbox repository holds ${count} YAML file(s) from ${relative(io.cwd, dir) || "."}${existsSync(dir) ? "" : " (absent: only the bundled library)"}\n` +
      `  people: ${[...playground.sandbox.api.permissions].map(([l, p]) => `${l} (${p})`).join(", ")}\n` +
      "  everything stays on this machine; edits live in the sandbox, not in your files. Ctrl-C stops it.\n",
  );
  if (skipped.length > 0)
    io.err(
      `playground: left out ${skipped.length} file(s) over the limit of ${MAX_FILES} files: ${skipped.slice(0, 5).join(", ")}\n`,
    );
  for (const r of refused) io.err(`playground: ${r.file}: not read (${r.rule}): ${r.message}\n`);
  return playground;
}
