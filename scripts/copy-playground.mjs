// Puts the playground's page beside its built module (dist/entries/playground/page), with
// Mermaid's and DOMPurify's browser bundles and their licences in vendor/, and the page's editor
// (src/entries/playground/editor: CodeMirror and the language server's completion and hover)
// bundled into editor.js, with the licences of the packages it holds in editor.LICENSES.txt: the
// package then serves the page without the source tree or these packages installed. Runs after
// tsc, whose output holds the editor's bundler.
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
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

const { bundleEditor } = await import(
  join(root, "dist", "entries", "playground", "editor-bundle.js")
);
const editor = await bundleEditor(join(root, "src", "entries", "playground", "editor", "main.ts"));
writeFileSync(join(to, "editor.js"), editor.code);
const licences = editor.packages.map((name) => {
  const dir = join(root, "node_modules", name);
  const file = ["LICENSE", "LICENSE.md", "LICENSE.txt", "license"].find((f) =>
    existsSync(join(dir, f)),
  );
  const { version, license } = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  const text = file ? readFileSync(join(dir, file), "utf8").trim() : `${license}`;
  return `${name}@${version} (${license})\n\n${text}\n`;
});
writeFileSync(
  join(to, "editor.LICENSES.txt"),
  `The packages bundled into editor.js, and their licences.\n\n${licences.join("\n---\n\n")}`,
);
