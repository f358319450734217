import { createHash } from "node:crypto";
import { existsSync, lstatSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { KnownPlaybook } from "../../core/rules/validate.js";

/**
 * The bundled library's playbooks as `validate` resolves targets against them, written once by
 * the build (`dist/library-cache.json`) so a command does not parse and validate the whole
 * library again on every start. The cache names the library's exact bytes: a library edited
 * since the build (a checkout) does not match, and is validated as before.
 */
interface LibraryCache {
  fingerprint: string;
  known: KnownPlaybook[];
}

/** The library's files and their bytes, in a stable order, as one digest. */
export function libraryFingerprint(dir: string): string {
  const hash = createHash("sha256");
  const files = (readdirSync(dir, { recursive: true }) as string[])
    .filter((f) => lstatSync(join(dir, f)).isFile())
    .sort();
  for (const f of files) {
    hash.update(`${f}\0`);
    hash.update(readFileSync(join(dir, f)));
    hash.update("\0");
  }
  return hash.digest("hex");
}

/** Where the build keeps the cache: `dist/` beside the library (`playbooks/`). */
export function libraryCacheFile(libraryDir: string): string {
  return join(dirname(libraryDir), "dist", "library-cache.json");
}

/** The cached playbooks, when the cache was written for exactly these library files. */
export function cachedLibrary(libraryDir: string): KnownPlaybook[] | undefined {
  const file = libraryCacheFile(libraryDir);
  if (!existsSync(file)) return undefined;
  try {
    const cache = JSON.parse(readFileSync(file, "utf8")) as LibraryCache;
    return cache.fingerprint === libraryFingerprint(libraryDir) ? cache.known : undefined;
  } catch {
    return undefined;
  }
}

/** Write the cache for the library as it is now (the build does). */
export function writeLibraryCache(libraryDir: string, known: KnownPlaybook[]): string {
  const file = libraryCacheFile(libraryDir);
  const cache: LibraryCache = { fingerprint: libraryFingerprint(libraryDir), known };
  writeFileSync(file, JSON.stringify(cache) + "\n");
  return file;
}
