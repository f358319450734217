// npm's `prepare`: builds dist/ unless it is already built from the sources as they are now.
// `npm ci` runs it, and so does every first `npx playbook-bot` in a clone: npx installs the
// clone into its own cache to link the command, and that install runs `prepare` again (20 s of
// building a second time, for nothing, before the first command a newcomer types).
//
//   node scripts/prepare.mjs          build, or say why not
//   node scripts/prepare.mjs --stamp  record that dist/ was just built (the end of `npm run build`)
import { spawnSync } from "node:child_process";
import { readdirSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));

/** What the build reads: a change to any of these (a file's, or a folder's list) means building again. */
export const BUILD_INPUTS = [
  "src",
  "scripts",
  "playbooks",
  "schema",
  "package.json",
  "package-lock.json",
  "tsconfig.json",
  "tsconfig.build.json",
  "tsconfig.editor.json",
];

/** Written after a build; its time is the build's. Inside dist/, so `npm pack`'s clean removes it. */
export const STAMP = join("dist", ".built-from-sources");

/**
 * The first input changed since `since` (ms): a file written, or a folder whose entries changed
 * (a file added, removed or renamed). Undefined when none was.
 */
export function changedSince(dir, since, inputs = BUILD_INPUTS) {
  const newer = (path) => {
    let stat;
    try {
      stat = statSync(path);
    } catch {
      return undefined; // an input a checkout does not have (an optional tsconfig)
    }
    if (stat.mtimeMs > since) return path;
    if (!stat.isDirectory()) return undefined;
    for (const entry of readdirSync(path)) {
      const found = newer(join(path, entry));
      if (found) return found;
    }
    return undefined;
  };
  for (const input of inputs) {
    const found = newer(join(dir, input));
    if (found) return relative(dir, found);
  }
  return undefined;
}

/** Why dist/ must be built: no build recorded, or the input changed since. Undefined when current. */
export function reasonToBuild(dir) {
  let built;
  try {
    built = statSync(join(dir, STAMP)).mtimeMs;
  } catch {
    return "no build recorded";
  }
  const changed = changedSince(dir, built);
  return changed ? `${changed} changed since the last build` : undefined;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  if (process.argv.includes("--stamp")) {
    writeFileSync(join(root, STAMP), `${new Date().toISOString()}\n`);
  } else {
    const reason = reasonToBuild(root);
    if (reason === undefined) {
      process.stdout.write(
        "dist/ is built from the sources as they are: not built again (`npm run build` builds anyway)\n",
      );
    } else {
      process.stdout.write(`building dist/: ${reason}\n`);
      const npm = process.env.npm_execpath;
      const build = npm
        ? spawnSync(process.execPath, [npm, "run", "build"], { cwd: root, stdio: "inherit" })
        : spawnSync("npm", ["run", "build"], { cwd: root, stdio: "inherit", shell: true });
      process.exitCode = build.status ?? 1;
    }
  }
}
