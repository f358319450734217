/**
 * Starting the playground, as `playbook-bot playground [--port N] [--playbooks DIR]` and
 * `npm start` without GitHub credentials do: a folder's playbooks (and the templates beside
 * them) become the sandbox repository's `.github/playbooks/`; the bundled library is there as in
 * the app. Nothing in the folder is changed.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { relative, resolve } from "node:path";
import { glob } from "tinyglobby";
import { PLAYBOOK_DIR } from "../../adapters/github/discovery.js";
import { Playground } from "./server.js";

/** Files a folder gives the sandbox at most, and the bytes of one. */
const MAX_FILES = 300;
const MAX_FILE_BYTES = 1024 * 1024;

export interface PlaygroundIo {
  out: (text: string) => void;
  err: (text: string) => void;
  cwd: string;
}

/** The sandbox repository's files from a folder: its YAML and Markdown (templates), bounded. */
export async function folderFiles(
  dir: string,
): Promise<{ files: Record<string, string>; skipped: string[] }> {
  const paths = await glob(["**/*.yml", "**/*.yaml", "**/*.md", "**/*.json"], {
    cwd: dir,
    ignore: ["**/node_modules/**"],
    dot: false,
  });
  const files: Record<string, string> = {};
  const skipped: string[] = [];
  for (const path of paths.sort()) {
    const full = resolve(dir, path);
    if (Object.keys(files).length >= MAX_FILES || statSync(full).size > MAX_FILE_BYTES) {
      skipped.push(path);
      continue;
    }
    files[`${PLAYBOOK_DIR}${path}`] = readFileSync(full, "utf8");
  }
  return { files, skipped };
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
  const { files, skipped } = existsSync(dir) ? await folderFiles(dir) : { files: {}, skipped: [] };
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
      `playground: left out ${skipped.length} file(s) over the limits (${MAX_FILES} files, 1 MiB each): ${skipped.slice(0, 5).join(", ")}\n`,
    );
  return playground;
}
