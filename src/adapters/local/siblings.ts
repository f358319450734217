import { dirname, isAbsolute, relative, resolve } from "node:path";
import type { Siblings } from "../../core/dialects/index.js";
import { readConfinedText } from "./safe-files.js";

/** A sidecar larger than this is not read (a playbook is a few kilobytes). */
const MAX_SIBLING_BYTES = 1024 * 1024;

/**
 * The files next to a playbook on disk, for a dialect that keeps parts of a playbook in other
 * files (sidecars, a paired markdown file). Only files inside `root` (the repository or the
 * folder validated) are read: a path that climbs out of it reads as absent.
 */
export function siblingsOnDisk(file: string, root: string): Siblings {
  const dir = dirname(file);
  return {
    read(relativePath) {
      const target = resolve(dir, relativePath);
      const inside = relative(root, target);
      if (inside.startsWith("..") || isAbsolute(inside)) return undefined;
      // A link, a device or pipe, or a file over the cap reads as absent too.
      return readConfinedText(target, { root, maxBytes: MAX_SIBLING_BYTES });
    },
  };
}
