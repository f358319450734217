// Puts the playground's page beside its built module (dist/entries/playground/page), with
// Mermaid's and DOMPurify's browser bundles and their licences in vendor/: the package then serves the page without
// the source tree or the mermaid package installed.
import { copyFileSync, cpSync, mkdirSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const from = join(root, "src", "entries", "playground", "page");
const to = join(root, "dist", "entries", "playground", "page");
rmSync(to, { recursive: true, force: true });
cpSync(from, to, { recursive: true });
const require = createRequire(import.meta.url);
const bundle = require.resolve("mermaid/dist/mermaid.min.js");
mkdirSync(join(to, "vendor"), { recursive: true });
copyFileSync(bundle, join(to, "vendor", "mermaid.min.js"));
copyFileSync(join(dirname(bundle), "..", "LICENSE"), join(to, "vendor", "mermaid.LICENSE"));
const purify = require.resolve("dompurify/dist/purify.min.js");
copyFileSync(purify, join(to, "vendor", "purify.min.js"));
copyFileSync(join(dirname(purify), "..", "LICENSE"), join(to, "vendor", "purify.LICENSE"));
