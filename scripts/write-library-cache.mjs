// Writes dist/library-cache.json: the bundled library's valid playbooks as `validate` resolves
// targets against them, with the digest of the library's files (see
// src/adapters/local/library-cache.ts). Runs after tsc, from the built modules.
import "../dist/adapters/local/yaml-library.js";
import { bundledLibraryDir, validatedLibrary } from "../dist/adapters/local/library.js";
import { writeLibraryCache } from "../dist/adapters/local/library-cache.js";

const known = await validatedLibrary();
const file = writeLibraryCache(bundledLibraryDir(), known);
console.log(`wrote ${file} (${known.length} playbooks)`);
